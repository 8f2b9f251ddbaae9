/**
 * A live watcher that falls behind gets several events per write (issue 10,
 * aim 4), as kube-apiserver flushes several events per chunk: while the socket
 * has not taken the last chunk, the events that come meanwhile wait and go out
 * together. Read here as raw bytes, so the chunked framing itself is checked.
 * Also: the fan-out never runs inside the write's own path (issue 14, item 7).
 */
import assert from 'node:assert/strict';
import { connect, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { startApiServer, type RunningApiServer } from '../src/server.js';
import { MvccStore } from '../src/storage/mvcc-store.js';
import { RawClient } from './support/raw-client.js';

const cmPath = '/api/v1/namespaces/default/configmaps';

/** The chunks of an HTTP/1.1 chunked body, parsed strictly: `size CRLF data CRLF`, ending with a `0` chunk when `complete`. */
function parseChunks(body: Buffer): { chunks: Buffer[]; rest: Buffer; complete: boolean } {
  const chunks: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) break;
    const sizeText = body.subarray(at, eol).toString('latin1');
    assert.match(sizeText, /^[0-9a-f]+$/, `a chunk size line at byte ${at}`);
    const size = parseInt(sizeText, 16);
    if (size === 0) return { chunks, rest: body.subarray(eol + 2), complete: true };
    if (body.length < eol + 2 + size + 2) break;
    chunks.push(body.subarray(eol + 2, eol + 2 + size));
    assert.equal(body.subarray(eol + 2 + size, eol + 4 + size).toString('latin1'), '\r\n', `the CRLF after a chunk of ${size} bytes`);
    at = eol + 4 + size;
  }
  return { chunks, rest: body.subarray(at), complete: false };
}

/**
 * A watch read from a raw TLS socket: the response head, then the body's chunks as they come. The body
 * is parsed as it arrives, keeping only the bytes of a chunk not yet whole: re-parsing (and re-copying)
 * the whole body on each read made the 20 MiB backlog test quadratic, 24 s idle and over 100 s under
 * load, close to the suite's per-test timeout.
 */
class RawWatch {
  head = '';
  private parsed: Buffer[] = [];
  /** The bytes after the last whole chunk (after the last `0` chunk once `complete`). */
  private rest: Buffer = Buffer.alloc(0);
  private complete = false;
  /** Events in the whole chunks so far: one per newline (a newline byte is never part of a multi-byte UTF-8 character). */
  private newlines = 0;
  /** A framing error, raised to whoever reads the chunks next. */
  private framingError?: unknown;
  private waiting?: () => void;

  private constructor(readonly socket: TLSSocket) {
    let received = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      if (!this.head) {
        received = Buffer.concat([received, d]);
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        this.head = received.subarray(0, end).toString('latin1');
        d = received.subarray(end + 4);
      }
      this.take(d);
      this.waiting?.();
    });
  }

  private take(d: Buffer): void {
    this.rest = Buffer.concat([this.rest, d]);
    if (this.complete || this.framingError !== undefined) return;
    try {
      const parsed = parseChunks(this.rest);
      for (const chunk of parsed.chunks) {
        this.parsed.push(chunk);
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) this.newlines++;
      }
      this.rest = parsed.rest;
      this.complete = parsed.complete;
    } catch (err) {
      this.framingError = err;
    }
  }

  static async open(server: RunningApiServer, path: string): Promise<RawWatch> {
    const url = new URL(server.url);
    const socket = connect({ host: url.hostname, port: Number(url.port), ca: server.caPem, servername: url.hostname === '127.0.0.1' ? undefined : url.hostname });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    const watch = new RawWatch(socket);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${server.adminToken}\r\nAccept: application/json\r\n\r\n`);
    await watch.until(() => watch.head !== '');
    return watch;
  }

  /** Resolves once `done()` holds, checked as bytes arrive. */
  until(done: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!done()) return;
        this.waiting = undefined;
        this.socket.off('close', onClose);
        resolve();
      };
      const onClose = (): void => reject(new Error(`the watch closed; head ${JSON.stringify(this.head)}, ${this.bodyBytes()} body bytes`));
      this.socket.on('close', onClose);
      this.waiting = check;
      check();
    });
  }

  private bodyBytes(): number {
    return this.parsed.reduce((n, c) => n + c.length, 0) + this.rest.length;
  }

  chunks(): Buffer[] {
    if (this.framingError !== undefined) throw this.framingError;
    return this.parsed;
  }

  /** The events (lines) in the whole chunks received so far. */
  events(): number {
    if (this.framingError !== undefined) throw this.framingError;
    return this.newlines;
  }

  /** True once the body has ended with its last (`0`) chunk; nothing may follow it. */
  ended(): boolean {
    if (this.framingError !== undefined) throw this.framingError;
    if (!this.complete || this.rest.length < 2) return false;
    assert.equal(this.rest.toString('latin1'), '\r\n', 'the empty trailer after the last chunk, and nothing else');
    return true;
  }
}

describe('a watcher that falls behind', () => {
  let server: RunningApiServer;
  let client: RawClient;
  before(async () => {
    // A bound above the burst: this watcher is slow, not stuck, and must not be cut.
    server = await startApiServer({ port: 0, maxWatchBufferBytes: 64 * 1024 * 1024 });
    client = new RawClient(server.url, server.caPem, server.adminToken);
  });
  after(async () => {
    client?.close();
    await server?.stop();
  });

  it('gets the events that came while it was behind several per chunk, whole and in order, in exact chunked framing', async (t) => {
    const created = await client.send({ method: 'POST', path: cmPath, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'backlog' } }) });
    assert.equal(created.status, 201, created.text);
    const from = (created.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const watch = await RawWatch.open(server, `${cmPath}?watch=1&resourceVersion=${from}`);
    assert.match(watch.head, /^HTTP\/1\.1 200 /);
    assert.match(watch.head, /\r\ntransfer-encoding: chunked/i);

    // The watcher stops reading; each update below is a fan-out round of its own (one event). About
    // 20 MiB: far more than the socket buffers between server and client hold, so the server's writes
    // stop completing part way, and the events after that wait for the socket.
    watch.socket.pause();
    const payload = 'x'.repeat(64 * 1024);
    const writes = 320;
    const revisions: string[] = [];
    for (let i = 0; i < writes; i++) {
      const res = await client.send({ method: 'PATCH', path: `${cmPath}/backlog`, headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { v: `${i}-${payload}` } }) });
      assert.equal(res.status, 200);
      revisions.push((res.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    }
    watch.socket.resume();
    await watch.until(() => watch.events() >= writes);
    watch.socket.destroy();

    const chunks = watch.chunks();
    const perChunk = chunks.map((c) => {
      const text = c.toString('utf8');
      // A chunk holds whole events: never a part of one.
      assert.ok(text.endsWith('\n'), 'a chunk ends at the end of an event');
      return text.slice(0, -1).split('\n');
    });
    const events = perChunk.flat().map((line) => JSON.parse(line) as { type: string; object: { metadata: { resourceVersion: string }; data: { v: string } } });
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.object.metadata.resourceVersion}`),
      revisions.map((rv) => `MODIFIED ${rv}`),
    );
    assert.ok(events.every((e, i) => e.object.data.v === `${i}-${payload}`));
    const most = Math.max(...perChunk.map((c) => c.length));
    t.diagnostic(`${writes} events in ${chunks.length} chunks, at most ${most} in one`);
    // Each update was its own round: one chunk per event, unless the server held them while the socket was full.
    assert.ok(most > 1, `${writes} events in ${chunks.length} chunks`);
    assert.ok(chunks.length < writes, `${writes} events in ${chunks.length} chunks`);
  });
});

describe('live events', () => {
  let server: RunningApiServer;
  let client: RawClient;
  before(async () => {
    server = await startApiServer({ port: 0 });
    client = new RawClient(server.url, server.caPem, server.adminToken);
  });
  after(async () => {
    client?.close();
    await server?.stop();
  });

  it('reach every watcher of a round as the same chunks, in exact framing, and a watch that times out ends its body after them', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const watches = [];
    for (let i = 0; i < 3; i++) watches.push(await RawWatch.open(server, `${path}?watch=1&timeoutSeconds=2`));
    const create = async (name: string): Promise<string> => {
      const res = await client.send({ method: 'POST', path, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name }, data: { name } }) });
      assert.equal(res.status, 201, res.text);
      return (res.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    };
    // One at a time (a round each), then several at once (perhaps rounds of several events).
    const revisions: string[] = [];
    for (let i = 0; i < 3; i++) revisions.push(await create(`one-${i}`));
    revisions.push(...(await Promise.all(Array.from({ length: 5 }, (_, i) => create(`many-${i}`)))));
    await Promise.all(watches.map((w) => w.until(() => w.ended())));
    const seen = watches.map((w) => {
      const chunks = w.chunks();
      assert.ok(chunks.every((c) => c.toString('utf8').endsWith('\n')), 'a chunk holds whole events');
      return chunks.map((c) => c.toString('utf8')).join('');
    });
    const lines = seen[0]!.split('\n').slice(0, -1);
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as { type: string; object: { metadata: { resourceVersion: string } } }).object.metadata.resourceVersion).sort((a, b) => Number(a) - Number(b)),
      revisions.sort((a, b) => Number(a) - Number(b)),
    );
    for (const line of lines) assert.equal((JSON.parse(line) as { type: string }).type, 'ADDED');
    // Each event's line is the bytes a GET of its object sends, between the event's constant parts.
    const last = JSON.parse(lines[lines.length - 1]!) as { object: { metadata: { name: string } } };
    const got = await client.send({ method: 'GET', path: `${path}/${last.object.metadata.name}` });
    assert.equal(lines[lines.length - 1], `{"type":"ADDED","object":${got.text}}`);
    assert.equal(seen[1], seen[0]);
    assert.equal(seen[2], seen[0]);
    for (const w of watches) w.socket.destroy();
  });
});

describe('the fan-out', () => {
  it('never runs inside the write: watchers get the event after the write has returned, on a later turn', async () => {
    const store = new MvccStore();
    const seen: number[][] = Array.from({ length: 50 }, () => []);
    const watches = seen.map((got) => store.watch('/configmaps/default/', store.revision, (e) => got.push(e.rev)));
    const stored = store.create('/configmaps/default/a', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } });
    const updated = store.update('/configmaps/default/a', stored.rev, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { v: '1' } });
    assert.deepEqual(seen.flat(), [], 'no watcher has anything when the writes return');
    await new Promise<void>((resolve) => process.nextTick(resolve));
    assert.deepEqual(seen.flat(), [], 'nor at the end of the writes turn');
    // Then on a later turn (in slices of a few milliseconds, so perhaps over several).
    for (let turns = 0; turns < 1000 && seen.some((got) => got.length < 2); turns++) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const got of seen) assert.deepEqual(got, [stored.rev, updated.rev]);
    for (const w of watches) w.stop();
    store.close();
  });
});
