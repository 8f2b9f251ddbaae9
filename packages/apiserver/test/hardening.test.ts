/**
 * Hardening (issue 14), each finding with the test that failed before its fix:
 *
 * - item 3: deeply nested YAML (`[` × 1M, `{a: ` × 300k, `- ` × 100k) is
 *   refused at once with go-yaml's "exceeded max depth" wording, where the
 *   YAML parser blocked the event loop for seconds (or overflowed its stack,
 *   or killed the process); the server answers /healthz meanwhile;
 * - item 4: a YAML body whose aliases expand past the 3 MiB body limit gets
 *   kube's 413; an object whose JSON is over etcd's 1.5 MiB is refused as
 *   etcd refuses it ("etcdserver: request is too large", a 500 without a
 *   reason, as kube-apiserver passes it on), on create and on update;
 * - item 5: the replay of a watch from an old resourceVersion is rendered as
 *   the socket drains, not all at once before the answer (a watcher that
 *   never read made the server render the whole history);
 * - item 6: the event history is bounded by bytes as well as by count (2,000
 *   updates of a 1 MiB ConfigMap held 2 GB), watches from before its start get
 *   410, and with a data dir the on-disk log is trimmed by bytes too, so the
 *   directory and a restart depend on the live data;
 * - item 7: requests in flight are limited as kube's --max-requests-inflight
 *   and --max-mutating-requests-inflight limit them (429 with Retry-After;
 *   watches and system:masters exempt);
 * - item 8: a request body that never ends is cut after the request timeout
 *   (60 s by default, as kube cuts bodies), watches exempt;
 * - item 9: a watch asking for timeoutSeconds=3000000 is not ended after 1 ms
 *   (a Node timer overflow, which sent clients into a hot re-watch loop): it
 *   gets the default duration;
 * - input details: a lone surrogate escape is stored as U+FFFD, as Go decodes it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startApiServer, type RunningApiServer } from '../src/server.js';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { watchTimeoutMs } from '../src/http/watch-handler.js';
import { yamlDepthBound } from '../src/http/lazy-yaml.js';
import { RawClient } from './support/raw-client.js';

const cmPath = '/api/v1/namespaces/default/configmaps';

// A full collection before each reading, so that memory figures are live data, not garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const yaml = { 'Content-Type': 'application/yaml' };

describe('hardening the embedded API server', () => {
  let server: RunningApiServer;
  let client: RawClient;
  before(async () => {
    server = await startApiServer({ port: 0, requestTimeoutMs: 1_000, defaultWatchTimeoutMs: 1_000, maxWatchBufferBytes: 256 * 1024 });
    client = new RawClient(server.url, server.caPem, server.adminToken);
  });
  after(async () => {
    client?.close();
    await server?.stop();
  });

  /** How long a watch of `path` stays open, from the request to the end of its response. */
  const watchLasts = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const req = request(new URL(path, server.url), { ca: server.caPem, headers: { authorization: `Bearer ${server.adminToken}` } });
      req.on('response', (res) => {
        assert.equal(res.statusCode, 200);
        res.resume();
        res.on('end', () => resolve(performance.now() - started));
      });
      req.on('error', reject);
      req.end();
    });

  const healthz = async () => (await client.send({ method: 'GET', path: '/healthz', auth: false })).text;

  describe('item 3: deeply nested YAML is refused at once', () => {
    const attacks: Array<[string, string]> = [
      ['[ × 1,000,000', '['.repeat(1_000_000)],
      ['{a:  × 300,000', '{a: '.repeat(300_000)],
      ['-  × 100,000', `${'- '.repeat(100_000)}x`],
      ['[ × 5,000 (once fatal to the process)', `${'['.repeat(5_000)}${']'.repeat(5_000)}`],
    ];
    for (const [name, body] of attacks) {
      it(name, async () => {
        const started = performance.now();
        const [res, health] = await Promise.all([client.send({ method: 'POST', path: cmPath, headers: yaml, body }), healthz()]);
        const ms = performance.now() - started;
        assert.equal(res.status, 400, res.text);
        assert.match(String(res.json?.message), /^the object provided is unrecognized \(must be of type ConfigMap\): yaml: exceeded max depth of 500 \(/);
        assert.equal(health, 'ok');
        // Before: 13-18 s of a blocked event loop.
        assert.ok(ms < 2_000, `answered after ${ms.toFixed(0)} ms`);
      });
    }

    it('ordinary YAML is not affected: brackets in quotes, comments and block scalars, and real nesting', async () => {
      const body = [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: scripts # [[[[ not a bracket',
        'data:',
        '  quoted: "[[[[[[[[ {{{{{{"',
        "  single: '[[[['' [[['",
        '  script: |',
        `    ${'['.repeat(600)}`,
        `    if [ -f x ]; then echo ${'{'.repeat(600)}; fi`,
        '  json: \'{"a": {"b": [1, [2, [3]]]}}\'',
      ].join('\n');
      const res = await client.send({ method: 'POST', path: cmPath, headers: yaml, body });
      assert.equal(res.status, 201, res.text);
      assert.equal((res.json as { data: Record<string, string> }).data.script!.length, 600 + 1 + `if [ -f x ]; then echo ${'{'.repeat(600)}; fi`.length + 1);
    });

    it('yamlDepthBound bounds real nesting from above', () => {
      assert.ok(yamlDepthBound('a:\n  b:\n    c: [1, {d: [2]}]\n') >= 5);
      assert.ok(yamlDepthBound('- - - x\n') >= 3);
      assert.equal(yamlDepthBound('a: "[[["  # [[[\nb: |\n  [[[[\n'), 0);
    });
  });

  describe('item 4: sizes', () => {
    it('a YAML body whose aliases expand past the body limit gets kube\'s 413', async () => {
      const big = 'x'.repeat(570_000);
      const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: amplified\ndata:\n  a: &big "${big}"\n${Array.from({ length: 99 }, (_, i) => `  k${i}: *big`).join('\n')}\n`;
      const res = await client.send({ method: 'POST', path: cmPath, headers: yaml, body });
      assert.equal(res.status, 413, res.text.slice(0, 200));
      assert.deepEqual(res.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Request entity too large: limit is 3145728', reason: 'RequestEntityTooLarge', code: 413 });
      assert.equal((await client.send({ method: 'GET', path: `${cmPath}/amplified` })).status, 404);
    });

    it('a large YAML body is decoded on a worker thread: the server keeps serving, and the object, warnings and errors are the same', async () => {
      const pad = 'p'.repeat(900_000);
      const body = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  pad: "${pad}"\n  k: v1\n  k: v2\n`;
      const replies = await Promise.all([0, 1].map((i) => client.send({ method: 'POST', path: cmPath, headers: yaml, body: body(`large-yaml-${i}`) })));
      for (const r of replies) {
        assert.equal(r.status, 201, r.text.slice(0, 200));
        assert.equal(r.headers.warning, '299 - "line 8: key \\"k\\" already set in map"');
        assert.deepEqual(Object.keys((r.json as { data: object }).data), ['pad', 'k']);
        assert.equal((r.json as { data: { k: string } }).data.k, 'v2');
      }
      const broken = await client.send({ method: 'POST', path: cmPath, headers: yaml, body: `${body('broken')}\tbad: [\n` });
      const small = await client.send({ method: 'POST', path: cmPath, headers: yaml, body: `${body('broken').replace(pad, 'p')}\tbad: [\n` });
      assert.equal(broken.status, 400);
      assert.equal((broken.json as { message: string }).message.replace(/\(.*\)$/, ''), (small.json as { message: string }).message.replace(/\(.*\)$/, ''));

      // Aliases that expand past the limit: refused after the whole decode (~0.1 s each), which here is
      // all the work. On the server's thread, the four would let a /healthz through only between them.
      const amplified = `metadata:\n  name: amp\ndata:\n  a: &x "${'x'.repeat(570_000)}"\n${Array.from({ length: 99 }, (_, i) => `  k${i}: *x`).join('\n')}\n`;
      let posting = true;
      const refused = Promise.all([0, 1, 2, 3].map(() => client.send({ method: 'POST', path: cmPath, headers: yaml, body: amplified }))).finally(() => (posting = false));
      let servedMeanwhile = 0;
      while (posting) if ((await healthz()) === 'ok' && posting) servedMeanwhile++;
      assert.deepEqual((await refused).map((r) => r.status), [413, 413, 413, 413]);
      assert.ok(servedMeanwhile >= 20, `only ${servedMeanwhile} /healthz answered while the YAML bodies were decoded`);
    });

    const tooLarge = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request is too large', code: 500 };

    it('an object over 1.5 MiB is refused as etcd refuses it, and nothing is stored', async () => {
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'huge' }, data: { a: 'x'.repeat(1_600_000) } });
      const res = await client.send({ method: 'POST', path: cmPath, headers: { 'Content-Type': 'application/json' }, body });
      assert.deepEqual([res.status, res.json], [500, tooLarge]);
      assert.equal((await client.send({ method: 'GET', path: `${cmPath}/huge` })).status, 404);
    });

    it('an update or patch that grows an object past 1.5 MiB is refused too; one just under passes', async () => {
      const create = await client.send({ method: 'POST', path: cmPath, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'growing' }, data: { a: 'x'.repeat(1_000_000) } }) });
      assert.equal(create.status, 201);
      const patch = (value: string) => client.send({ method: 'PATCH', path: `${cmPath}/growing`, headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { b: value } }) });
      const grown = await patch('y'.repeat(600_000));
      assert.deepEqual([grown.status, grown.json], [500, tooLarge]);
      assert.equal((await patch('y'.repeat(400_000))).status, 200);
    });
  });

  describe('item 8: request bodies that never end', () => {
    it('are cut after the request timeout; the server goes on', async () => {
      const started = performance.now();
      const status = await new Promise<number | string>((resolve) => {
        const req = request(new URL(cmPath, server.url), {
          method: 'POST',
          ca: server.caPem,
          headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        });
        req.on('error', (err) => resolve((err as NodeJS.ErrnoException).code ?? 'error'));
        // One chunk, then nothing more, ever.
        req.write('{"metadata":');
      });
      const ms = performance.now() - started;
      // Node answers 408 or resets the connection; either way within the timeout and its check interval.
      assert.ok(status === 408 || status === 'ECONNRESET', String(status));
      assert.ok(ms >= 900 && ms < 5_000, `cut after ${ms.toFixed(0)} ms`);
      assert.equal(await healthz(), 'ok');
    });

    it('a watch is not cut by it: it lasts its own timeout', async () => {
      const ms = await watchLasts(`${cmPath}?watch=1&timeoutSeconds=2`);
      assert.ok(ms >= 1_900, `the watch ended after ${ms.toFixed(0)} ms`);
    });
  });

  describe('item 9: huge watch timeouts', () => {
    it('timeoutSeconds=3000000 gets the default duration, not 1 ms', async () => {
      const ms = await watchLasts(`${cmPath}?watch=1&timeoutSeconds=3000000`);
      // The default here is 1-2 s (defaultWatchTimeoutMs 1000, with kube's jitter).
      assert.ok(ms >= 900 && ms < 4_000, `the watch lasted ${ms.toFixed(0)} ms`);
    });

    it('watchTimeoutMs: honoured up to twice the default; none, 0 or more gets the default with jitter', () => {
      const half = () => 0.5;
      assert.equal(watchTimeoutMs(30, 1_800_000, half), 30_000);
      assert.equal(watchTimeoutMs(3_600, 1_800_000, half), 3_600_000);
      assert.equal(watchTimeoutMs(3_601, 1_800_000, half), 2_700_000);
      assert.equal(watchTimeoutMs(3_000_000, 1_800_000, half), 2_700_000);
      assert.equal(watchTimeoutMs(0, 1_800_000, half), 2_700_000);
      assert.equal(watchTimeoutMs(undefined, 1_800_000, half), 2_700_000);
    });
  });

  describe('input details', () => {
    it('a field named twice: kube\'s warning with Warn, its strict decoding error with Strict, nothing with Ignore', async () => {
      const body = '{"metadata":{"name":"twice","labels":{"a":"1","a":"2"}},"data":{"k":"v1","k":"v2"}}';
      const warned = await client.send({ method: 'POST', path: cmPath, headers: { 'Content-Type': 'application/json' }, body });
      assert.equal(warned.status, 201, warned.text);
      // Node joins the two Warning headers with a comma.
      assert.equal(warned.headers.warning, '299 - "duplicate field \\"metadata.labels.a\\"", 299 - "duplicate field \\"data.k\\""');
      assert.equal((warned.json as { data: { k: string } }).data.k, 'v2', 'the last one wins, as in Go');
      const strict = await client.send({ method: 'POST', path: `${cmPath}?fieldValidation=Strict`, headers: { 'Content-Type': 'application/json' }, body: body.replace('twice', 'strict') });
      assert.equal(strict.status, 400);
      assert.equal((strict.json as { message: string }).message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.labels.a", duplicate field "data.k"');
      const ignored = await client.send({ method: 'POST', path: `${cmPath}?fieldValidation=Ignore`, headers: { 'Content-Type': 'application/json' }, body: body.replace('twice', 'ignored') });
      assert.equal(ignored.status, 201);
      assert.equal(ignored.headers.warning, undefined);
    });

    it('duplicateFields names array elements by index, and ignores keys inside strings', async () => {
      const { duplicateFields } = await import('../src/http/duplicate-fields.js');
      assert.deepEqual(duplicateFields('{"spec":{"containers":[{"name":"a"},{"name":"b","image":"x","image":"y"}]},"s":"{\\"a\\":1,\\"a\\":2}"}'), ['spec.containers[1].image']);
      assert.deepEqual(duplicateFields('{"a":{"x":1},"b":{"x":1}}'), []);
    });

    it('a YAML key named twice: go-yaml\'s strict messages, a warning each with Warn, one strict decoding error with Strict, nothing with Ignore', async () => {
      // sigs.k8s.io/yaml's YAMLToJSON keeps the last value; YAMLToJSONStrict names the line of the repeated key's value.
      const body = [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: yaml-twice',
        '  labels:',
        '    a: "1"',
        '    a: "2"',
        'data:',
        '  k: v1',
        '  k: v2',
        'data:',
        '  k: v3',
        '',
      ].join('\n');
      const messages = ['line 7: key "a" already set in map', 'line 10: key "k" already set in map', 'line 12: key "data" already set in map'];
      const warned = await client.send({ method: 'POST', path: cmPath, headers: yaml, body });
      assert.equal(warned.status, 201, warned.text);
      assert.equal(warned.headers.warning, messages.map((m) => `299 - ${JSON.stringify(m)}`).join(', '));
      const stored = warned.json as { metadata: { labels: Record<string, string> }; data: Record<string, string> };
      assert.deepEqual({ labels: stored.metadata.labels, data: stored.data }, { labels: { a: '2' }, data: { k: 'v3' } }, 'the last value wins, as in YAMLToJSON');
      const strict = await client.send({ method: 'POST', path: `${cmPath}?fieldValidation=Strict`, headers: yaml, body: body.replace('yaml-twice', 'yaml-strict') });
      assert.equal(strict.status, 400, strict.text);
      assert.equal(
        (strict.json as { message: string }).message,
        `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  ${messages.join('\n  ')}`,
      );
      const ignored = await client.send({ method: 'POST', path: `${cmPath}?fieldValidation=Ignore`, headers: yaml, body: body.replace('yaml-twice', 'yaml-ignored') });
      assert.equal(ignored.status, 201, ignored.text);
      assert.equal(ignored.headers.warning, undefined);
      const update = await client.send({ method: 'PUT', path: `${cmPath}/yaml-ignored`, headers: yaml, body: body.replace('yaml-twice', 'yaml-ignored') });
      assert.equal(update.status, 200, update.text);
      assert.equal(update.headers.warning, messages.map((m) => `299 - ${JSON.stringify(m)}`).join(', '), 'an update is decoded as a create is');
    });

    it('YAML repeats: an alias is read again where it is used, keys compare by type, a merge key is no key', async () => {
      const { parseYamlKeepingLastKey } = await import('../src/http/lazy-yaml.js');
      const aliased = parseYamlKeepingLastKey('a: &x {k: 1, k: 2}\nb: *x\n', { version: '1.1' });
      assert.deepEqual(aliased, { value: { a: { k: 2 }, b: { k: 2 } }, duplicates: ['line 1: key "k" already set in map', 'line 1: key "k" already set in map'] });
      assert.deepEqual(parseYamlKeepingLastKey('1: a\n"1": b\n1: c\n', { version: '1.1' }).duplicates, ['line 3: key 1 already set in map']);
      assert.deepEqual(parseYamlKeepingLastKey('base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n', { version: '1.1' }).duplicates, []);
      assert.deepEqual(parseYamlKeepingLastKey('a:\nb: 1\na:\n', { version: '1.1' }).duplicates, ['line 3: key "a" already set in map']);
    });

    it('a lone surrogate escape is stored as U+FFFD (Go\'s decoder); a pair stays one character', async () => {
      const body = '{"metadata":{"name":"surrogates"},"data":{"lone":"a\\ud800b","low":"\\udc00","pair":"\\ud83d\\ude00"}}';
      const res = await client.send({ method: 'POST', path: cmPath, headers: { 'Content-Type': 'application/json' }, body });
      assert.equal(res.status, 201, res.text);
      const stored = await client.send({ method: 'GET', path: `${cmPath}/surrogates` });
      assert.deepEqual((stored.json as { data: Record<string, string> }).data, { lone: 'a\uFFFDb', low: '\uFFFD', pair: '\u{1F600}' });
    });
  });

  describe('item 5: a watch replaying old events obeys the slow-watcher bound', () => {
    /** Opens a watch of the ConfigMap `name` from `from` and returns its response unread. */
    const openWatch = (name: string, from: string) =>
      new Promise<{ res: import('node:http').IncomingMessage; req: import('node:http').ClientRequest }>((resolve, reject) => {
        const req = request(new URL(`${cmPath}?watch=1&resourceVersion=${from}&fieldSelector=metadata.name%3D${name}`, server.url), { ca: server.caPem, headers: { authorization: `Bearer ${server.adminToken}` } });
        req.on('response', (res) => resolve({ res, req }));
        req.on('error', reject);
        req.end();
      });

    /** A ConfigMap updated `count` times with `size` bytes each; returns the resourceVersion before. */
    const history = async (name: string, count: number, size: number): Promise<string> => {
      const created = await client.send({ method: 'POST', path: cmPath, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name } }) });
      for (let i = 0; i < count; i++) {
        const res = await client.send({ method: 'PATCH', path: `${cmPath}/${name}`, headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { v: `${i % 10}`.repeat(size) } }) });
        assert.equal(res.status, 200);
      }
      return (created.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    };

    it('a watcher that reads gets the whole replay, past the bound (it drains)', async () => {
      const from = await history('replayed', 20, 30_000);
      const { res, req } = await openWatch('replayed', from);
      let events = 0;
      let buffered = '';
      res.setEncoding('utf8');
      await new Promise<void>((resolve) => {
        res.on('data', (chunk: string) => {
          buffered += chunk;
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          events += lines.length;
          if (events >= 20) resolve();
        });
      });
      req.destroy();
      assert.equal(events, 20);
    });

    it('one that does not read costs the server no rendering of the history', async () => {
      // 80 events of 1 MB: a rendering of the replay is 80 MB.
      const from = await history('unread', 80, 1_000_000);
      gc();
      const before = process.memoryUsage();
      const { res, req } = await openWatch('unread', from);
      res.pause();
      gc();
      const after = process.memoryUsage();
      const grown = after.heapUsed + after.external - (before.heapUsed + before.external);
      req.destroy();
      // Before the fix every event was rendered before the answer began: 80 MB and more.
      assert.ok(grown < 40_000_000, `the server grew by ${(grown / 1e6).toFixed(0)} MB`);
      assert.equal(await healthz(), 'ok');
    });
  });

  describe('item 6: the event history is bounded by bytes', () => {
    /** A server of its own with an 8 MiB history, and a ConfigMap updated `count` times with `size` bytes. */
    const churn = async (options: { dataDir?: string }, count: number, size: number) => {
      const own = await startApiServer({ port: 0, historyMaxBytes: 8 * 1024 * 1024, ...options });
      const raw = new RawClient(own.url, own.caPem, own.adminToken);
      const created = await raw.send({ method: 'POST', path: cmPath, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'churn' } }) });
      assert.equal(created.status, 201, created.text);
      let last = '';
      for (let i = 0; i < count; i++) {
        const res = await raw.send({ method: 'PATCH', path: `${cmPath}/churn`, headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { v: `${i % 10}`.repeat(size) } }) });
        assert.equal(res.status, 200);
        last = (res.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      }
      return { own, raw, first: (created.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion, last };
    };

    it('60 updates of 1 MB keep about 8 MiB of history: memory stays bounded, older watches get 410', async () => {
      gc();
      const before = process.memoryUsage().heapUsed;
      const { own, raw, first, last } = await churn({}, 60, 1_000_000);
      try {
        gc();
        const grown = process.memoryUsage().heapUsed - before;
        // Unbounded, the history held all 60 MB (and more, as JS objects).
        assert.ok(grown < 30_000_000, `the server grew by ${(grown / 1e6).toFixed(0)} MB`);
        const expired = await raw.send({ method: 'GET', path: `${cmPath}?watch=1&resourceVersion=${first}&timeoutSeconds=1` });
        assert.match(expired.text, /"type":"ERROR".*"code":410/);
        const recent = await raw.send({ method: 'GET', path: `${cmPath}?watch=1&resourceVersion=${Number(last) - 1}&timeoutSeconds=1` });
        assert.match(recent.text, /"type":"MODIFIED"/);
      } finally {
        raw.close();
        await own.stop();
      }
    });

    it('with a data dir, the log on disk is trimmed by bytes too, and a restart reads only what is kept', async () => {
      const dataDir = join(mkdtempSync(join(tmpdir(), 'operant-history-')), 'data');
      try {
        const { own, raw } = await churn({ dataDir }, 60, 1_000_000);
        raw.close();
        await own.stop();
        const size = readdirSync(dataDir).reduce((n, f) => n + (statSync(join(dataDir, f)).isFile() ? statSync(join(dataDir, f)).size : 0), 0);
        // Untrimmed, 60 events of 1 MB (and their previous values): over 100 MB.
        assert.ok(size < 60_000_000, `the data dir holds ${(size / 1e6).toFixed(0)} MB`);
        gc();
        const before = process.memoryUsage().heapUsed;
        const again = await startApiServer({ port: 0, dataDir, historyMaxBytes: 8 * 1024 * 1024 });
        gc();
        const grown = process.memoryUsage().heapUsed - before;
        await again.stop();
        assert.ok(grown < 30_000_000, `the restart took ${(grown / 1e6).toFixed(0)} MB`);
      } finally {
        rmSync(dirname(dataDir), { recursive: true, force: true });
      }
    });
  });

  describe('item 7: requests in flight are limited', () => {
    it('a mutating request past the limit gets 429 with Retry-After; reads, watches and the admin are not held up', async () => {
      const own = await startApiServer({ port: 0, maxMutatingRequestsInflight: 1 });
      const raw = new RawClient(own.url, own.caPem, own.adminToken);
      const asJane = { 'Impersonate-User': 'jane', 'Content-Type': 'application/json' };
      try {
        const bound = await raw.send({
          method: 'POST',
          path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ metadata: { name: 'jane-edit' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' }, subjects: [{ kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' }] }),
        });
        assert.equal(bound.status, 201, bound.text);
        // Jane's first create holds the one mutating slot: its body is still coming.
        const holder = request(new URL(cmPath, own.url), {
          method: 'POST',
          ca: own.caPem,
          headers: { authorization: `Bearer ${own.adminToken}`, 'impersonate-user': 'jane', 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        });
        const held = new Promise<number>((resolve, reject) => {
          holder.on('response', (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          holder.on('error', reject);
        });
        holder.write('{"metadata":');
        // Wait until the server counts it: a second create gets 429 once it does.
        let refused = await raw.send({ method: 'POST', path: cmPath, headers: asJane, body: JSON.stringify({ metadata: { name: 'second' } }) });
        for (let i = 0; i < 50 && refused.status !== 429; i++) {
          await raw.send({ method: 'DELETE', path: `${cmPath}/second` });
          refused = await raw.send({ method: 'POST', path: cmPath, headers: asJane, body: JSON.stringify({ metadata: { name: 'second' } }) });
        }
        assert.equal(refused.status, 429, refused.text);
        assert.equal(refused.headers['retry-after'], '1');
        assert.deepEqual(refused.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Too many requests, please try again later.', reason: 'TooManyRequests', details: { retryAfterSeconds: 1 }, code: 429 });
        assert.equal((await raw.send({ method: 'GET', path: cmPath, headers: asJane })).status, 200, 'reads have their own limit');
        assert.equal((await raw.send({ method: 'POST', path: cmPath, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'by-admin' } }) })).status, 201, 'system:masters is exempt');
        holder.end('{"name":"first"}}');
        assert.equal(await held, 201);
        assert.equal((await raw.send({ method: 'POST', path: cmPath, headers: asJane, body: JSON.stringify({ metadata: { name: 'third' } }) })).status, 201, 'the slot is free again');
      } finally {
        raw.close();
        await own.stop();
      }
    });
  });
});
