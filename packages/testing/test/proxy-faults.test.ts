/**
 * Every fault of the proxy, observed through the real runtime client and
 * informers against the embedded server: latency holding a request back
 * before the server sees it, what a client sees for each error, that
 * informers retry a failed list, resume a cut watch from where it broke
 * without losing or repeating an event, relist on 410, and stall through a
 * partition; bookmarks dropped; faults kept to their verbs, resources and
 * namespaces; writes that failed recorded, applied or not.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  ApiError,
  Client,
  ConfigMap,
  Secret,
  ServiceAccount,
  isNotFound,
  silentLogger,
  type KubeObject,
  type Typed,
} from '@operant/runtime';
import { Informer } from '@operant/runtime/cache';
import type { Status } from '@operant/apimachinery';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { chaos, consistently, eventually, FaultProxy, TestEnv } from '../src/index.js';

// Bookmarks every 100 ms, so that dropping them shows within a test.
const KUBECTL = '/usr/bin/kubectl';
const env = await TestEnv.start({ server: { bookmarkIntervalMs: 100 } });
const proxy = await env.faultProxy();
const client = Client.fromConfig(await proxy.clientConfig(), { qps: Infinity });
after(async () => {
  client.close();
  await env.stop();
});

type CM = Typed<corev1.ConfigMap>;
const fastBackoff = { initialMs: 20, maxMs: 200 };

/** An informer on ConfigMaps of `namespace`, through the proxy, counting what its handlers see. */
function informer(namespace: string, signal: AbortSignal): { informer: Informer<CM>; added: Map<string, number> } {
  const inf = new Informer<CM>(client.listerWatcher(ConfigMap), { namespace, backoff: fastBackoff, logger: silentLogger, name: 'configmaps' });
  const added = new Map<string, number>();
  inf.addEventHandler({ add: (cm) => void added.set(cm.metadata.name!, (added.get(cm.metadata.name!) ?? 0) + 1) });
  inf.start(signal);
  return { informer: inf, added };
}

async function createConfigMaps(namespace: string, prefix: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await env.client.create(ConfigMap, { metadata: { name: `${prefix}-${i}`, namespace }, data: { i: String(i) } });
}

function apiError(err: unknown): ApiError {
  assert.ok(err instanceof ApiError, `not an ApiError: ${String(err)}`);
  return err;
}

describe('Retry-After, honoured by the client as client-go honours it', () => {
  /** A client through the proxy that records the status of every attempt. */
  async function counting(t: { after(fn: () => void): unknown }, options: { maxRetries?: number } = {}): Promise<{ client: Client; codes: string[] }> {
    const codes: string[] = [];
    const c = Client.fromConfig(await proxy.clientConfig(), { qps: Infinity, ...options, metrics: { observeRequest: (o) => void codes.push(o.code) } });
    t.after(() => c.close());
    return { client: c, codes };
  }

  test('a 429 with Retry-After is retried after the delay the server asked for', async (t) => {
    const ns = await env.namespace(t);
    await env.client.create(ConfigMap, { metadata: { name: 'a', namespace: ns.name } });
    const { client: c, codes } = await counting(t);
    const fault = proxy.inject({ kind: 'error', code: 429, retryAfterSeconds: 1, verbs: ['get'], namespaces: [ns.name] }, { times: 2 });
    const started = performance.now();
    assert.equal((await c.get(ConfigMap, 'a', { namespace: ns.name })).metadata.name, 'a');
    const tookMs = performance.now() - started;
    assert.equal(fault.hits, 2);
    assert.deepEqual(codes, ['429', '429', '200']);
    assert.ok(tookMs >= 2000, `two retries 1 s apart took only ${tookMs.toFixed(0)} ms`);
  });

  test('a create refused with Retry-After is sent again and made once; one the server made already answers AlreadyExists', async (t) => {
    const ns = await env.namespace(t);
    const { client: c, codes } = await counting(t);
    proxy.inject({ kind: 'error', code: 429, retryAfterSeconds: 0, verbs: ['create'], namespaces: [ns.name] }, { times: 1 });
    await c.create(ConfigMap, { metadata: { name: 'refused', namespace: ns.name } });
    assert.deepEqual(codes, ['429', '201']);
    // The answer lied: the server made the object, so the retry collides with it (as with client-go).
    proxy.inject({ kind: 'error', code: 503, retryAfterSeconds: 0, applied: true, verbs: ['create'], namespaces: [ns.name] }, { times: 1 });
    const err = apiError(await c.create(ConfigMap, { metadata: { name: 'made', namespace: ns.name } }).catch((e: unknown) => e));
    assert.equal(err.reason, 'AlreadyExists');
    assert.deepEqual((await env.client.list(ConfigMap, { namespace: ns.name })).items.map((cm) => cm.metadata.name).sort(), ['made', 'refused']);
  });

  test('retries are bounded (10, as client-go; or maxRetries), then the last answer is the error', async (t) => {
    const ns = await env.namespace(t);
    using fault = proxy.inject({ kind: 'error', code: 429, retryAfterSeconds: 0, verbs: ['list'], namespaces: [ns.name] });
    const { client: byDefault, codes } = await counting(t);
    const err = apiError(await byDefault.list(ConfigMap, { namespace: ns.name }).catch((e: unknown) => e));
    assert.equal(err.reason, 'TooManyRequests');
    assert.equal(codes.length, 11);
    assert.equal(fault.hits, 11);
    const { client: twice } = await counting(t, { maxRetries: 2 });
    apiError(await twice.list(ConfigMap, { namespace: ns.name }).catch((e: unknown) => e));
    assert.equal(fault.hits, 14);
  });

  test('a 503 without Retry-After is final; a watch refused with Retry-After is retried', async (t) => {
    const ns = await env.namespace(t);
    const { client: c, codes } = await counting(t);
    proxy.inject({ kind: 'error', code: 503, verbs: ['list'], namespaces: [ns.name] }, { times: 1 });
    assert.equal(apiError(await c.list(ConfigMap, { namespace: ns.name }).catch((e: unknown) => e)).code, 503);
    assert.deepEqual(codes, ['503']);

    const refused = proxy.inject({ kind: 'error', code: 429, retryAfterSeconds: 0, verbs: ['watch'], namespaces: [ns.name] }, { times: 2 });
    const stop = new AbortController();
    t.after(() => stop.abort());
    const events = c.watch(ConfigMap, { namespace: ns.name, signal: stop.signal })[Symbol.asyncIterator]();
    const first = events.next();
    await eventually(() => assert.equal(refused.hits, 2));
    await env.client.create(ConfigMap, { metadata: { name: 'watched', namespace: ns.name } });
    const event = await first;
    assert.equal(event.done, false);
    assert.equal(event.value?.type, 'ADDED');
    assert.equal(event.value?.object.metadata.name, 'watched');
  });

  test('waiting out a Retry-After ends when the request is aborted', async (t) => {
    const ns = await env.namespace(t);
    using _ = proxy.inject({ kind: 'error', code: 429, retryAfterSeconds: 3600, verbs: ['get'], namespaces: [ns.name] });
    const { client: c } = await counting(t);
    const err = await c.get(ConfigMap, 'a', { namespace: ns.name, signal: AbortSignal.timeout(200) }).catch((e: unknown) => e);
    assert.ok(err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError'), `not an abort: ${String(err)}`);
  });
});

describe('errors, as the client sees them', () => {
  test('500, 503 and 504 arrive as kube Status errors', async (t) => {
    const ns = await env.namespace(t);
    await env.client.create(ConfigMap, { metadata: { name: 'a', namespace: ns.name } });
    const cases = [
      [500, 'InternalError', /^Internal error occurred: injected by the operant chaos proxy$/],
      [503, 'ServiceUnavailable', /^the server is currently unable to handle the request/],
      [504, 'Timeout', /^Timeout: request did not complete within requested timeout/],
    ] as const;
    for (const [code, reason, message] of cases) {
      proxy.inject({ kind: 'error', code, verbs: ['get'], namespaces: [ns.name] }, { times: 1 });
      const err = apiError(await client.get(ConfigMap, 'a', { namespace: ns.name }).catch((e: unknown) => e));
      assert.equal(err.code, code);
      assert.equal(err.reason, reason);
      assert.match(err.message, message);
    }
    // Each fault hit once and went away: the next get passes.
    assert.equal((await client.get(ConfigMap, 'a', { namespace: ns.name })).metadata.name, 'a');
  });

  test('429 carries Retry-After, in the header and in the Status details', async (t) => {
    const ns = await env.namespace(t);
    using _ = proxy.inject({ kind: 'error', code: 429, retryAfterSeconds: 7, namespaces: [ns.name] });
    // A client that does not retry, to see the answer itself.
    const once = Client.fromConfig(await proxy.clientConfig(), { qps: Infinity, maxRetries: 0 });
    t.after(() => once.close());
    const err = apiError(await once.list(ConfigMap, { namespace: ns.name }).catch((e: unknown) => e));
    assert.equal(err.reason, 'TooManyRequests');
    assert.equal(err.details?.retryAfterSeconds, 7);
    const raw = await rawGet(`/api/v1/namespaces/${ns.name}/configmaps`);
    assert.equal(raw.status, 429);
    assert.equal(raw.headers['retry-after'], '7');
    assert.equal(JSON.parse(raw.body).kind, 'Status');
    // A 429 always tells the client when to come back: 1 s unless the fault says otherwise.
    const other = await env.namespace(t);
    using _default = proxy.inject({ kind: 'error', code: 429, namespaces: [other.name] });
    const plain = await rawGet(`/api/v1/namespaces/${other.name}/configmaps`);
    assert.deepEqual([plain.status, plain.headers['retry-after'], (JSON.parse(plain.body) as Status).details?.retryAfterSeconds], [429, '1', 1]);
  });

  test('an informer whose lists fail with 503 retries until it syncs', async (t) => {
    const ns = await env.namespace(t);
    await createConfigMaps(ns.name, 'cm', 3);
    const fault = proxy.inject({ kind: 'error', code: 503, verbs: ['list'], resources: ['configmaps'], namespaces: [ns.name] }, { times: 3 });
    const stop = new AbortController();
    t.after(() => stop.abort());
    const { informer: inf } = informer(ns.name, stop.signal);
    assert.equal(await inf.waitForCacheSync(stop.signal), true);
    assert.equal(fault.hits, 3);
    assert.equal(inf.stats().errors, 3);
    assert.equal(inf.store.list().length, 3);
  });
});

describe('writes that fail', () => {
  test('a reset before the server saw a create: the client gets a connection error, nothing is created', async (t) => {
    const ns = await env.namespace(t);
    const from = proxy.failedWrites.length;
    proxy.inject({ kind: 'reset', verbs: ['create'], namespaces: [ns.name] }, { times: 1 });
    const err = await client.create(ConfigMap, { metadata: { name: 'lost', namespace: ns.name } }).catch((e: unknown) => e);
    assert.ok(err instanceof Error && !(err instanceof ApiError), `expected a connection error, got ${String(err)}`);
    assert.match((err as NodeJS.ErrnoException).code ?? err.message, /ECONNRESET|socket hang up/);
    await assert.rejects(env.client.get(ConfigMap, 'lost', { namespace: ns.name }), isNotFound);
    assert.deepEqual(
      proxy.failedWrites.slice(from).map(({ verb, resource, namespace, name, applied, outcome }) => ({ verb, resource, namespace, name, applied, outcome })),
      [{ verb: 'create', resource: 'configmaps', namespace: ns.name, name: 'lost', applied: false, outcome: 'connection reset' }],
    );
  });

  test('a 504 after the server did the create: the client hears it failed, the object exists, the write is recorded as applied', async (t) => {
    const ns = await env.namespace(t);
    const from = proxy.failedWrites.length;
    proxy.inject({ kind: 'error', code: 504, applied: true, verbs: ['create'], namespaces: [ns.name] }, { times: 1 });
    const err = apiError(await client.create(ConfigMap, { metadata: { generateName: 'made-', namespace: ns.name } }).catch((e: unknown) => e));
    assert.equal(err.code, 504);
    const { items } = await env.client.list(ConfigMap, { namespace: ns.name });
    const made = items.filter((c) => c.metadata.name?.startsWith('made-'));
    assert.equal(made.length, 1);
    const [write] = proxy.failedWrites.slice(from);
    assert.equal(write?.applied, true);
    assert.equal(write?.name, made[0]!.metadata.name, 'the name the server gave');
    assert.equal(write?.outcome, '504');
  });

  test('a reset after the server did an update: the change is there, the client got an error', async (t) => {
    const ns = await env.namespace(t);
    const cm = await env.client.create(ConfigMap, { metadata: { name: 'u', namespace: ns.name }, data: { v: '1' } });
    proxy.inject({ kind: 'reset', applied: true, verbs: ['update'], namespaces: [ns.name] }, { times: 1 });
    await assert.rejects(client.update(ConfigMap, { ...cm, data: { v: '2' } }));
    assert.equal((await env.client.get(ConfigMap, 'u', { namespace: ns.name })).data?.v, '2');
    assert.equal(proxy.failedWrites.at(-1)?.applied, true);
  });
});

describe('watches', () => {
  test('a watch cut in the middle of an event is resumed by the informer, losing and repeating nothing', async (t) => {
    const ns = await env.namespace(t);
    await createConfigMaps(ns.name, 'before', 5);
    const stop = new AbortController();
    t.after(() => stop.abort());
    const { informer: inf, added } = informer(ns.name, stop.signal);
    await inf.waitForCacheSync(stop.signal);
    const cut = proxy.inject({ kind: 'cut-watch', resources: ['configmaps'], namespaces: [ns.name] }, { times: 4 });
    await createConfigMaps(ns.name, 'during', 40);
    await eventually(() => assert.equal(inf.store.list().length, 45), { timeout: 10_000 });
    assert.equal(cut.hits, 4, 'four streams were cut');
    const stats = inf.stats();
    assert.equal(stats.lists, 1, 'resumed from its resourceVersion, never relisted');
    assert.ok(stats.watches >= 5, `${stats.watches} watches`);
    assert.deepEqual([...added.values()].filter((n) => n !== 1), [], 'every object added exactly once');
    assert.equal(added.size, 45);
    assert.ok(proxy.records.some((r) => r.faultId === cut.id && r.type === 'hit' && /cut in the middle of an event \(ADDED\)/.test(r.detail ?? '')));
  });

  test('the timeline counts the whole events a cut stream passed before the cut: "after 1 whole event"', async (t) => {
    const ns = await env.namespace(t);
    const list = await client.list(ConfigMap, { namespace: ns.name });
    const seen: string[] = [];
    let cut: ReturnType<typeof proxy.inject> | undefined;
    const watching = (async () => {
      for await (const e of client.watch<KubeObject>(ConfigMap, { namespace: ns.name, resourceVersion: list.metadata.resourceVersion })) {
        seen.push(`${e.type} ${e.object.metadata.name}`);
        // One whole event passed: the next one is cut in half.
        if (!cut) cut = proxy.inject({ kind: 'cut-watch', resources: ['configmaps'], namespaces: [ns.name] }, { times: 1 });
      }
    })().catch(() => undefined);
    await env.client.create(ConfigMap, { metadata: { name: 'first', namespace: ns.name } });
    await eventually(() => assert.ok(cut, 'the first event arrived'));
    await env.client.create(ConfigMap, { metadata: { name: 'second', namespace: ns.name } });
    await cut!.ended;
    await watching;
    assert.deepEqual(seen, ['ADDED first']);
    const hit = proxy.records.find((r) => r.faultId === cut!.id && r.type === 'hit');
    assert.equal(hit?.detail, 'cut in the middle of an event (ADDED), after 1 whole event');
  });

  test('on the wire, the cut stream ends inside an event: its first half arrives, then the connection drops', async (t) => {
    const ns = await env.namespace(t);
    const list = await client.list(ConfigMap, { namespace: ns.name });
    proxy.inject({ kind: 'cut-watch', namespaces: [ns.name] }, { times: 1 });
    const ca = (await proxy.clientConfig()).tls.ca;
    const url = new URL(proxy.url);
    const path = `/api/v1/namespaces/${ns.name}/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`;
    // Everything the watch receives until its connection ends, and how it ended.
    const received = new Promise<{ body: string; ended: string }>((resolve, reject) => {
      const req = request({ hostname: url.hostname, port: url.port, path, ca, headers: { Authorization: `Bearer ${proxyToken()}` } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ body, ended: 'end' }));
        res.on('aborted', () => resolve({ body, ended: 'aborted' }));
        res.on('error', () => resolve({ body, ended: 'error' }));
      });
      req.on('error', reject);
      req.end();
    });
    await env.client.create(ConfigMap, { metadata: { name: 'cut', namespace: ns.name }, data: { filler: 'x'.repeat(200) } });
    const { body, ended } = await received;
    assert.notEqual(ended, 'end', 'the stream did not end cleanly');
    assert.ok(body.length > 0 && !body.endsWith('\n'), `the last bytes received are not a whole event: ${JSON.stringify(body.slice(-80))}`);
    const last = body.slice(body.lastIndexOf('\n') + 1);
    assert.match(last, /^\{"type":"ADDED","object":\{/);
    assert.throws(() => JSON.parse(last), SyntaxError, 'half an event is not JSON');
  });

  test('410 Expired on a resumed watch: HTTP 200 with one ERROR event, as kube sends it', async (t) => {
    const ns = await env.namespace(t);
    const list = await client.list(ConfigMap, { namespace: ns.name });
    using _ = proxy.inject({ kind: 'expire', namespaces: [ns.name] });
    const events = [];
    for await (const event of client.watch<KubeObject>(ConfigMap, { namespace: ns.name, resourceVersion: list.metadata.resourceVersion })) events.push(event);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, 'ERROR');
    assert.deepEqual(
      (({ kind, status, reason, code }) => ({ kind, status, reason, code }))(events[0]!.object as unknown as { kind: string; status: string; reason: string; code: number }),
      { kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 },
    );
  });

  test('expire strikes only a watch that resumes from a resourceVersion: one without (or from 0) starts as usual', async (t) => {
    const ns = await env.namespace(t);
    await env.client.create(ConfigMap, { metadata: { name: 'there', namespace: ns.name } });
    using expire = proxy.inject({ kind: 'expire', namespaces: [ns.name] });
    for (const resourceVersion of [undefined, '0']) {
      const stop = new AbortController();
      let first: { type: string; name?: string } | undefined;
      for await (const event of client.watch(ConfigMap, { namespace: ns.name, resourceVersion, signal: stop.signal })) {
        first = { type: event.type, name: event.object.metadata.name };
        stop.abort();
      }
      assert.deepEqual(first, { type: 'ADDED', name: 'there' }, `a watch from resourceVersion ${resourceVersion ?? '(none)'} gets the current objects`);
    }
    assert.equal(expire.hits, 0);
  });

  test('410 Expired makes an informer relist, and it ends with every object', async (t) => {
    const ns = await env.namespace(t);
    await createConfigMaps(ns.name, 'old', 3);
    const stop = new AbortController();
    t.after(() => stop.abort());
    const { informer: inf } = informer(ns.name, stop.signal);
    await inf.waitForCacheSync(stop.signal);
    const expire = proxy.inject({ kind: 'expire', namespaces: [ns.name] }, { times: 1 });
    // Cut the stream so that the informer resumes from its resourceVersion, and hears 410.
    proxy.inject({ kind: 'cut-watch', namespaces: [ns.name] }, { times: 1 });
    await createConfigMaps(ns.name, 'new', 3);
    await eventually(() => {
      assert.equal(inf.store.list().length, 6);
      assert.equal(inf.stats().lists, 2, 'relisted once');
    }, { timeout: 10_000 });
    assert.equal(expire.hits, 1);
  });

  test('dropped bookmarks never reach the client; other events still do', async (t) => {
    const ns = await env.namespace(t);
    // Watches with bookmarks, makes one ConfigMap, and ends once `enough` holds for the event types seen
    // (awaited, not a fixed window: on a loaded machine 100 ms bookmarks may come late).
    const types = async (enough: (seen: string[]) => boolean): Promise<string[]> => {
      const ac = new AbortController();
      const seen: string[] = [];
      const list = await client.list(ConfigMap, { namespace: ns.name });
      const watching = (async () => {
        for await (const e of client.watch(ConfigMap, { namespace: ns.name, resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true, signal: ac.signal })) seen.push(e.type);
      })();
      await env.client.create(ConfigMap, { metadata: { generateName: 'b-', namespace: ns.name } });
      try {
        await eventually(() => assert.ok(enough(seen), `seen ${JSON.stringify(seen)}`), { timeout: 10_000 });
      } finally {
        ac.abort();
        await watching;
      }
      return seen;
    };
    await types((seen) => seen.includes('ADDED') && seen.includes('BOOKMARK'));
    using drop = proxy.inject({ kind: 'drop-bookmarks', namespaces: [ns.name] });
    const seen = await types((seen) => seen.includes('ADDED') && drop.hits >= 2);
    assert.deepEqual(seen, ['ADDED'], 'the server sent bookmarks every 100 ms; none came through');
  });
});

describe('latency', () => {
  test('a request in scope reaches the server only after the delay; requests out of scope are not held', async (t) => {
    const ns = await env.namespace(t);
    // A watch straight on the server (not through the proxy) tells when each create arrived there.
    const arrived = new Map<string, number>();
    const stop = new AbortController();
    t.after(() => stop.abort());
    const { metadata } = await env.client.list(ConfigMap, { namespace: ns.name });
    const watching = (async () => {
      for await (const e of env.client.watch(ConfigMap, { namespace: ns.name, resourceVersion: metadata.resourceVersion, signal: stop.signal })) {
        if (e.type === 'ADDED') arrived.set(e.object.metadata.name!, performance.now());
        if (arrived.size === 2) return;
      }
    })();
    const slow = proxy.inject({ kind: 'latency', ms: 300, verbs: ['create'], resources: ['configmaps'], namespaces: [ns.name] });
    const sent = performance.now();
    await client.create(ConfigMap, { metadata: { name: 'slow', namespace: ns.name } });
    await client.create(Secret, { metadata: { name: 'not-a-configmap', namespace: ns.name } });
    await client.list(ConfigMap, { namespace: ns.name });
    slow.remove();
    await client.create(ConfigMap, { metadata: { name: 'after', namespace: ns.name } });
    await watching;
    const heldMs = arrived.get('slow')! - sent;
    assert.ok(heldMs >= 295, `the create reached the server ${Math.round(heldMs)} ms after it was sent, before the 300 ms delay`);
    assert.equal(slow.hits, 1, 'only the create of a ConfigMap in its namespace was held');
    assert.ok(proxy.records.some((r) => r.faultId === slow.id && r.type === 'hit' && /delayed 300 ms/.test(r.detail ?? '')), 'the hit is recorded');
  });
});

describe('partitions', () => {
  test('a request hangs until the partition ends, then goes through', async (t) => {
    const ns = await env.namespace(t);
    const partition = proxy.inject({ kind: 'partition', namespaces: [ns.name] });
    const started = performance.now();
    const listed = client.list(ConfigMap, { namespace: ns.name });
    setTimeout(() => partition.remove(), 400);
    assert.deepEqual((await listed).items, []);
    assert.ok(performance.now() - started >= 390, `${Math.round(performance.now() - started)} ms`);
  });

  test('an informer stalls through a partition and catches up after it', async (t) => {
    const ns = await env.namespace(t);
    const stop = new AbortController();
    t.after(() => stop.abort());
    const { informer: inf } = informer(ns.name, stop.signal);
    await inf.waitForCacheSync(stop.signal);
    const partition = proxy.inject({ kind: 'partition', namespaces: [ns.name] });
    await env.client.create(ConfigMap, { metadata: { name: 'while-partitioned', namespace: ns.name } });
    await consistently(() => assert.equal(inf.store.list().length, 0), { duration: 300 });
    partition.remove();
    await eventually(() => assert.equal(inf.store.list().length, 1));
    // The stream stalled, or (when the informer had not opened it yet) its request hung.
    assert.ok(proxy.records.some((r) => r.faultId === partition.id && r.type === 'hit' && /watch stream stalled|hung until the partition ended/.test(r.detail ?? '')));
  });
});

describe('scope', () => {
  test('a fault touches only its verbs, resources and namespaces', async (t) => {
    const a = await env.namespace(t);
    const b = await env.namespace(t);
    using fault = proxy.inject({ kind: 'error', code: 503, verbs: ['create'], resources: ['configmaps'], namespaces: [a.name] });
    await assert.rejects(client.create(ConfigMap, { metadata: { name: 'x', namespace: a.name } }), (e: unknown) => apiError(e).code === 503);
    await client.create(ConfigMap, { metadata: { name: 'x', namespace: b.name } });
    await client.create(Secret, { metadata: { name: 'x', namespace: a.name } });
    await client.list(ConfigMap, { namespace: a.name });
    assert.equal(fault.hits, 1);
  });

  test('resources may name their group, as kubectl does', async (t) => {
    const ns = await env.namespace(t);
    using core = proxy.inject({ kind: 'error', code: 500, resources: ['configmaps.apps'], namespaces: [ns.name] });
    await client.list(ConfigMap, { namespace: ns.name });
    assert.equal(core.hits, 0, 'configmaps are in the core group, not apps');
  });
});

describe('reports', () => {
  test("a played schedule's report names the kinds whose windows struck nothing; a fault put in force beside the schedule does not count", async (t) => {
    const ns = await env.namespace(t);
    const window = [2000, 2000] as const;
    const schedule = chaos({
      seed: 5,
      duration: 2000,
      // The random part: latency on a namespace nothing asks for.
      faults: [{ kind: 'latency', ms: 1, namespaces: ['nowhere'] }],
      meanGapMs: 10_000,
      plan: {
        everyMs: 2000,
        faults: [
          // Struck: the list of configmaps below is held 10 ms.
          { kind: 'latency', ms: 10, at: 0, windowMs: window, resources: ['configmaps'], namespaces: [ns.name] },
          // Put in force, never struck: no watch resumes in the namespace meanwhile.
          { kind: 'expire', at: 0, windowMs: window, namespaces: [ns.name] },
          // Put in force, and every list of secrets in its scope, but the fault injected by hand takes it first.
          { kind: 'error', code: 503, probability: 1, at: 0, windowMs: window, resources: ['secrets'], namespaces: [ns.name] },
        ],
      },
    });
    using byHand = proxy.inject({ kind: 'error', code: 500, resources: ['secrets'], namespaces: [ns.name] });
    const played = proxy.play(schedule, { log: (line) => t.diagnostic(line) });
    await eventually(() => proxy.active().length === 4);
    await client.list(ConfigMap, { namespace: ns.name });
    await assert.rejects(client.list(Secret, { namespace: ns.name }), (err: unknown) => apiError(err).code === 500);
    const report = await played;
    assert.ok(byHand.hits === 1);
    assert.deepEqual(report.unstruck(), ['error', 'expire'], report.timeline());
  });
});

describe('the proxy itself', () => {
  test('refuses requests without credentials, so that it lends its identity to no one', async () => {
    const raw = await rawGet('/api/v1/namespaces', null);
    assert.equal(raw.status, 401);
  });

  test('a request bearing other credentials goes on as that identity, handed to the server in the process or sent on: a ServiceAccount is refused what RBAC does not grant it, a wrong token gets 401', async (t) => {
    const ns = await env.namespace(t);
    await client.create(ServiceAccount, { metadata: { name: 'reader', namespace: ns.name } });
    const issued = await rawRequest('POST', `/api/v1/namespaces/${ns.name}/serviceaccounts/reader/token`, proxyToken(), { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    assert.equal(issued.status, 201, issued.body);
    const saToken = (JSON.parse(issued.body) as { status: { token: string } }).status.token;
    const path = `/api/v1/namespaces/${ns.name}/configmaps`;
    const expectations = async (how: string): Promise<void> => {
      const denied = await rawGet(path, saToken);
      assert.equal(denied.status, 403, `${how}: ${denied.body}`);
      assert.match((JSON.parse(denied.body) as Status).message ?? '', new RegExp(`^configmaps is forbidden: User "system:serviceaccount:${ns.name}:reader" cannot list resource "configmaps"`), how);
      assert.equal((await rawGet(path, 'not-a-token')).status, 401, how);
      assert.equal((await rawGet(path)).status, 200, `${how}: the proxy's own token is the upstream admin`);
    };
    await expectations('handed over');
    using slow = proxy.inject({ kind: 'latency', ms: 1, resources: ['configmaps'], namespaces: [ns.name] });
    await expectations('sent on');
    assert.equal(slow.hits, 3, 'the fault covered the requests, so they were sent on');
  });

  test('passes an answer on as the server sent it: a list of megabytes, read slowly, arrives byte for byte with its headers', async (t) => {
    const ns = await env.namespace(t);
    const filler = 'x'.repeat(30_000);
    for (let i = 0; i < 100; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => env.client.create(ConfigMap, { metadata: { name: `big-${i + j}`, namespace: ns.name }, data: { filler } })));
    }
    const path = `/api/v1/namespaces/${ns.name}/configmaps`;
    const viaProxy = await rawGet(path, proxyToken(), { slow: true });
    const direct = await rawGet(path, env.server.adminToken, { url: env.server.url, ca: env.server.caPem });
    assert.equal(viaProxy.status, 200);
    assert.ok(viaProxy.body.length > 3_000_000, String(viaProxy.body.length));
    assert.equal(viaProxy.body, direct.body);
    assert.equal(viaProxy.headers['content-type'], direct.headers['content-type']);
    assert.equal((JSON.parse(viaProxy.body) as { items: unknown[] }).items.length, 100);
  });

  test('the real kubectl, a Go client, works through it over HTTPS with the kubeconfig it writes, and its faults hit kubectl\'s requests', async (t) => {
    if (!existsSync(KUBECTL)) {
      t.skip(`KUBECTL NOT FOUND at ${KUBECTL}: the kubectl check of the HTTPS proxy did not run`);
      return;
    }
    const ns = await env.namespace(t);
    const dir = mkdtempSync(join(tmpdir(), 'proxy-kubectl-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'kubeconfig');
    await proxy.writeKubeconfig(path);
    // A private HOME keeps kubectl's discovery cache out of the user's ~/.kube.
    const kubectl = (...args: string[]) => promisify(execFile)(KUBECTL, ['--kubeconfig', path, ...args], { timeout: 60_000, env: { ...process.env, HOME: dir } });
    await kubectl('create', 'configmap', 'from-kubectl', '-n', ns.name, '--from-literal=d=4');
    assert.equal((await env.client.get(ConfigMap, 'from-kubectl', { namespace: ns.name })).data?.d, '4');
    proxy.inject({ kind: 'error', code: 503, verbs: ['get'], resources: ['configmaps'], namespaces: [ns.name] }, { times: 1 });
    await assert.rejects(kubectl('get', 'configmap', 'from-kubectl', '-n', ns.name), (err: Error & { stderr?: string }) => /Error from server \(ServiceUnavailable\)/.test(err.stderr ?? ''));
    const { stdout } = await kubectl('get', 'configmap', 'from-kubectl', '-n', ns.name, '-o', 'jsonpath={.data.d}');
    assert.equal(stdout, '4');
  });

  test('hands out a kubeconfig naming its URL, CA and token', async () => {
    assert.match(proxy.kubeconfig, new RegExp(`server: ${proxy.url.replace(/[.]/g, '\\.')}`));
    assert.match(proxy.kubeconfig, /certificate-authority-data: /);
    assert.match(proxy.kubeconfig, /token: /);
    assert.ok(proxy instanceof FaultProxy);
  });
});

/** A request with a JSON body through the proxy, without the runtime client. */
async function rawRequest(method: string, path: string, token: string, body: unknown): Promise<{ status: number; body: string }> {
  const ca = (await proxy.clientConfig()).tls.ca;
  const url = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path, method, ca, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/**
 * A GET through the proxy (or `to.url`) without the runtime client, to see
 * headers; `token` null sends no Authorization. `slow` pauses after each chunk,
 * as a client that lags behind the answer.
 */
async function rawGet(
  path: string,
  token: string | null = proxyToken(),
  to: { url?: string; ca?: string; slow?: boolean } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const ca = to.ca ?? (await proxy.clientConfig()).tls.ca;
  const url = new URL(to.url ?? proxy.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path, method: 'GET', ca, headers: token ? { Authorization: `Bearer ${token}` } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        if (to.slow) {
          res.pause();
          setTimeout(() => res.resume(), 5);
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

function proxyToken(): string {
  return /token: (\S+)/.exec(proxy.kubeconfig)![1]!;
}
