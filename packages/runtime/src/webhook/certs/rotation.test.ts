/**
 * Certificate rotation under load: the WebhookServer, serving a conversion
 * webhook with its certificate from a directory source, answers every
 * ConversionReview, on fresh connections and on kept-alive ones, while the
 * pair in the directory is replaced five times (new leaves from the same CA,
 * written key first so the half-written state occurs).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@operant/apimachinery';
import type { ControllerLogger } from '../../controller/logger.js';
import type { ServingCertificate } from '../contracts.js';
import { conversionHandler } from '../conversion/handler.js';
import { defineConversion } from '../conversion/hub.js';
import { WebhookServer } from '../server.js';
import { directoryCertificateSource } from './directory-source.js';
import { generateServingCertificate } from './generate.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'operant-rotation-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const quiet: ControllerLogger = { debug() {}, info() {}, warn() {}, error() {} };

interface Widget extends KubeObject {
  spec: { replicas?: number; size?: number };
}
const widgets = defineConversion<Widget>({ group: 'example.com', version: 'v1', kind: 'Widget' }).spoke<Widget>('v2', {
  toHub: ({ spec: { size, ...spec }, ...w }) => ({ ...w, spec: { ...spec, replicas: size } }),
  fromHub: ({ spec: { replicas, ...spec }, ...w }) => ({ ...w, spec: { ...spec, size: replicas } }),
});

let uids = 0;

interface Answer {
  fingerprint: string;
  reused: boolean;
}

/** Posts a ConversionReview (v1 to v2) and checks the answer. */
function convert(port: number, ca: string, agent: Agent | false): Promise<Answer> {
  const uid = `uid-${++uids}`;
  const review = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid, desiredAPIVersion: 'example.com/v2', objects: [{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: uid }, spec: { replicas: uids } }] },
  };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/convert', method: 'POST', agent, ca, headers: { 'Content-Type': 'application/json' } }, (res) => {
      const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const answer = JSON.parse(text) as { response?: { uid?: string; result?: { status?: string }; convertedObjects?: Widget[] } };
        const ok = res.statusCode === 200 && answer.response?.uid === uid && answer.response.result?.status === 'Success' && answer.response.convertedObjects?.[0]?.spec.size !== undefined;
        if (ok) resolve({ fingerprint, reused: req.reusedSocket });
        else reject(new Error(`unexpected answer ${res.statusCode}: ${text}`));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(review));
  });
}

test('rotating the serving pair five times while requests flow fails no request', { timeout: 60_000 }, async (t) => {
  const first = await generateServingCertificate();
  const ca = { cert: first.caPem, key: first.caKey };
  await writeFile(join(dir, 'tls.key'), first.key);
  await writeFile(join(dir, 'tls.crt'), first.cert);
  const source = await directoryCertificateSource(dir, { pollIntervalMs: 1000, logger: quiet });
  const server = new WebhookServer({ certificates: source, host: '127.0.0.1', port: 0, logger: quiet });
  server.register('/convert', conversionHandler([widgets]));
  const ac = new AbortController();
  // The server starts the source (watching the directory) and swaps its TLS context on each change.
  const serving = server.start(ac.signal);
  const { port } = await server.listening();

  const keepAlive = new Agent({ keepAlive: true, maxSockets: 2, ca: first.caPem });
  const failures: unknown[] = [];
  const seen = new Set<string>();
  const waiters = new Map<string, () => void>();
  let fresh = 0;
  let kept = 0;
  let reused = 0;
  let stop = false;
  const freshLoop = async (): Promise<void> => {
    while (!stop) {
      try {
        const answer = await convert(port, first.caPem, false);
        fresh++;
        seen.add(answer.fingerprint);
        waiters.get(answer.fingerprint)?.();
      } catch (e) {
        failures.push(e);
      }
    }
  };
  const keptLoop = async (): Promise<void> => {
    while (!stop) {
      try {
        const answer = await convert(port, first.caPem, keepAlive);
        kept++;
        if (answer.reused) reused++;
      } catch (e) {
        failures.push(e);
      }
    }
  };
  const loops = [freshLoop(), freshLoop(), keptLoop(), keptLoop()];

  const fingerprints = [new X509Certificate(first.cert).fingerprint256];
  try {
    for (let i = 0; i < 5; i++) {
      const next: ServingCertificate = await generateServingCertificate({ ca });
      const fingerprint = new X509Certificate(next.cert).fingerprint256;
      fingerprints.push(fingerprint);
      const servedOnNewConnections = new Promise<void>((resolve) => waiters.set(fingerprint, resolve));
      // Not atomic on purpose: for a moment the key is new and the certificate old.
      await writeFile(join(dir, 'tls.key'), next.key);
      await writeFile(join(dir, 'tls.crt'), next.cert);
      await servedOnNewConnections;
    }
  } finally {
    stop = true;
    await Promise.all(loops);
    keepAlive.destroy();
    ac.abort();
    await serving;
  }

  t.diagnostic(`conversion requests: ${fresh} on fresh connections, ${kept} kept-alive (${reused} on reused sockets)`);
  assert.deepEqual(failures, []);
  assert.deepEqual([...seen].filter((f) => !fingerprints.includes(f)), [], 'only our certificates were served');
  for (const f of fingerprints.slice(1)) assert.ok(seen.has(f), `certificate ${f} was served`);
  assert.ok(fresh >= 6 && kept >= 6, `fresh ${fresh}, kept-alive ${kept}`);
  assert.ok(reused > 0, 'kept-alive connections were reused across the rotations');
});
