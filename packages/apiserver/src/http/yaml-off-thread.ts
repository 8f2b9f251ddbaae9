/**
 * Large YAML bodies are decoded on a worker thread. The YAML parser reads
 * about 10 MB/s (a 0.5 MB quoted string takes ~40 ms), and a 3 MiB body of
 * aliases to such strings holds the thread for the whole expansion check:
 * on the main thread every other request would wait, where kube-apiserver
 * decodes each request on a goroutine of its own. JSON, what clients send,
 * stays on the main thread: its native parse is fast.
 */
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import { StatusError, type Status, type StatusReason } from '@operant/apimachinery';
import { tagDuplicates, type DuplicateFields } from './duplicate-fields.js';
import { maxYamlDepth, yamlDepthBound } from './lazy-yaml.js';
import { decodeYamlObject } from './object-body.js';

/** Bodies up to this size are decoded where they arrive; the hop costs more than their parse. */
export const offThreadYamlBytes = 64 * 1024;

/** What the main thread asks of the worker. */
export interface YamlRequest {
  id: number;
  body: Uint8Array;
  into: string;
}

/** The worker's answer: the object as JSON text, or the Status (or message) it was refused with. */
export type YamlReply =
  | { id: number; json: string; duplicates?: DuplicateFields }
  | { id: number; status: Status }
  | { id: number; message: string };

interface Pending {
  resolve(value: Record<string, unknown>): void;
  reject(error: Error): void;
}

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();
/** An idle thread is ended after this long (a burst of large bodies keeps it), so that what the burst grew its heap to goes back to the system. */
const idleMs = 1_000;
let idleTimer: NodeJS.Timeout | undefined;

function yamlWorker(): Worker {
  if (worker) return worker;
  // Built (and bundled), the sibling is a .js file in dist. From source (tests under tsx) it is a
  // .ts file, and a worker thread starts without the tsx hooks of its parent: it registers them first.
  // node:worker_threads (and the five modules of Node's it loads) come with the first large body, not with every start.
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const w = import.meta.url.endsWith('.ts')
    ? new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./yaml-worker.ts', import.meta.url).href)}); })`, { eval: true })
    : new Worker(new URL('./yaml-worker.js', import.meta.url));
  // Idle, the worker must not keep the server's process alive.
  w.unref();
  w.on('message', (reply: YamlReply) => settle(reply));
  w.on('error', (err) => fail(w, err));
  w.on('exit', (code) => fail(w, new Error(`the YAML decoding thread exited with code ${code}`)));
  worker = w;
  return w;
}

function settle(reply: YamlReply): void {
  const p = pending.get(reply.id);
  if (!p) return;
  pending.delete(reply.id);
  if (pending.size === 0 && worker) {
    worker.unref();
    const idle = worker;
    idleTimer = setTimeout(() => {
      if (worker === idle && pending.size === 0) {
        worker = undefined;
        void idle.terminate();
      }
    }, idleMs);
    idleTimer.unref();
  }
  if ('json' in reply) {
    const value = JSON.parse(reply.json) as Record<string, unknown>;
    if (reply.duplicates) tagDuplicates(value, reply.duplicates);
    p.resolve(value);
  } else if ('status' in reply) {
    const s = reply.status;
    p.reject(new StatusError(s.code, s.reason as StatusReason, s.message ?? '', s.details));
  } else p.reject(new Error(reply.message));
}

/** The worker died: what it held fails, and the next body starts a new one. */
function fail(w: Worker, err: Error): void {
  if (worker !== w) return;
  worker = undefined;
  for (const p of pending.values()) p.reject(err);
  pending.clear();
}

/**
 * {@link decodeYamlObject}, on the worker thread when the body is large:
 * the same object, duplicate-key tags and errors.
 */
export function decodeYamlObjectOffThread(body: Buffer, into: string): Promise<Record<string, unknown>> {
  // Small bodies, and ones nested too deep (refused within the first levels of the scan), are
  // answered here: neither is worth the hop, nor the wait for the thread's first start.
  if (body.length <= offThreadYamlBytes || yamlDepthBound(body.toString('utf8'), maxYamlDepth) > maxYamlDepth) {
    return Promise.resolve().then(() => decodeYamlObject(body, into));
  }
  clearTimeout(idleTimer);
  const w = yamlWorker();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.ref();
    w.postMessage({ id, body, into } satisfies YamlRequest);
  });
}
