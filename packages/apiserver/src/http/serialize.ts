/**
 * Sending objects and lists as JSON from the bytes the store keeps for each
 * revision (storage/encoded-json.ts): a GET, a list or a watch event sends a
 * stored object without encoding it again. Large lists are streamed: the items
 * go to the socket in batches as it takes them, so ten concurrent lists of a
 * large collection never hold ten renderings of it.
 */
import type { ServerResponse } from 'node:http';
import type { KubeObject } from '@operant/apimachinery';
import { encodedJson, versionedJson } from '../storage/encoded-json.js';
import type { Versioned } from '../storage/types.js';
import { sendText } from './respond.js';

/** Sends one object (as stored, or any object that is not) as JSON. */
export function sendObjectJson(res: ServerResponse, code: number, obj: KubeObject): void {
  sendText(res, code, encodedJson(obj));
}

interface ListBody {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: unknown;
  items: KubeObject[];
  /** The items as the store holds them, when they are served as stored: sent without parsing those not parsed yet. */
  stored?: readonly Versioned[];
}

/** How many bytes of items go to the socket in one write. */
const batchBytes = 256 * 1024;
const comma = Buffer.from(',');
/** Bytes of a list that may wait in its response before the next batch waits for 'drain'. */
const maxListBacklog = 1024 * 1024;

/**
 * Sends a list object's JSON, the same bytes `JSON.stringify(list)` makes,
 * with its Content-Length. Items are written in batches; once more than
 * maxListBacklog waits unsent, the next batch waits for 'drain', and after
 * any batch other work gets a turn. Resolves when all is written, or when the
 * client went away.
 */
export async function sendListJson(res: ServerResponse, list: ListBody): Promise<void> {
  const head = Buffer.from(`${JSON.stringify({ kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata }).slice(0, -1)},"items":[`, 'utf8');
  const tail = Buffer.from(']}', 'utf8');
  // The items' bytes: kept by the store for stored objects; a converted version is encoded here, once.
  const bodies = list.stored ? list.stored.map(versionedJson) : list.items.map(encodedJson);
  let length = head.length + tail.length + Math.max(0, bodies.length - 1);
  for (const b of bodies) length += b.length;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': length, 'Cache-Control': 'no-cache, private' });

  // Each batch goes out as the kept bytes themselves, gathered by one writev (cork), never
  // copied into a new buffer: a list of 100,000 objects then allocates nothing per item, where
  // a copy per batch made hundreds of MB of short-lived buffers, whose external memory sets off
  // full collections of a large heap.
  res.cork();
  res.write(head);
  let pending = head.length;
  for (let i = 0; i < bodies.length; i++) {
    if (i > 0) {
      res.write(comma);
      pending++;
    }
    res.write(bodies[i]);
    pending += bodies[i].length;
    if (pending < batchBytes) continue;
    res.uncork();
    pending = 0;
    // A few batches may wait in the response, so the socket always has the next one at hand; past
    // that, the next batch waits for 'drain'. Either way other requests get a turn after each batch.
    if (!(res.writableLength > maxListBacklog ? await drained(res) : await nextTurn(res))) return;
    res.cork();
  }
  // end() uncorks: the last batch and the tail go out together.
  res.end(tail);
}

/** True at the next turn of the event loop, if the response is still open. */
async function nextTurn(res: ServerResponse): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  return !res.destroyed;
}

/** True once the response can take more; false if it closed first. */
function drained(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = (): void => done(true);
    const onClose = (): void => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}
