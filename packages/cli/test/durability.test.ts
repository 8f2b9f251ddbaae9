/**
 * Durability of `operant server --data-dir`: every write the server
 * acknowledged with a 2xx survives a kill -9, resourceVersions keep increasing
 * across restarts, a watch resumes from the last revision it saw, and SIGTERM
 * stops the server cleanly with its data on disk.
 *
 * The kill comes at a random moment drawn from a seeded generator; the seed is
 * printed, and `DURABILITY_SEED=<n>` replays a run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Prng } from '@operant/testing';
import { startServer } from './harness.js';
import { Client, cmPath, configMap, recordEvents, waitFor, type Response, type SeenEvent } from './https-client.js';

/** A seeded generator (the chaos schedules' mulberry32), so a failing run can be replayed. */
function seededRandom(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.next();
}

/** What the writers know about one ConfigMap. */
interface Known {
  /** Content and resourceVersion of the last write that got a 2xx. */
  acked?: { data: Record<string, string>; rv: number };
  /** A write sent without an answer yet: it may or may not have been applied. */
  inFlight?: Record<string, string>;
}

test('every acknowledged write survives kill -9; revisions increase and a watch resumes across the restart', async (t) => {
  const seed = process.env.DURABILITY_SEED ? Number(process.env.DURABILITY_SEED) : Math.floor(Math.random() * 2 ** 31);
  t.diagnostic(`seed ${seed} (replay with DURABILITY_SEED=${seed})`);
  console.log(`durability seed: ${seed}`);
  const killAfterMs = 150 + Math.floor(seededRandom(seed)() * 600);

  const dir = mkdtempSync(join(tmpdir(), 'operant-durability-'));
  const dataDir = join(dir, 'data');
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  let server = await startServer({ dataDir, dir });
  let client = new Client(server);
  t.after(async () => {
    client.close();
    if (server.child.exitCode === null && server.child.signalCode === null) await server.kill();
  });

  // A watch on ConfigMaps from the start; it records every event it receives.
  const seen: SeenEvent[] = [];
  const watchErrors: string[] = [];
  const recorder = (into: SeenEvent[]) => recordEvents(into, watchErrors);
  const record = recorder(seen);
  const startList = await client.send('GET', cmPath());
  assert.equal(startList.status, 200);
  const firstWatch = await client.watch(`${cmPath()}?watch=true&resourceVersion=${startList.body.metadata.resourceVersion}`, record);
  assert.equal(firstWatch.status, 200);

  // Writers: each owns its ConfigMaps and does one request at a time, so an
  // object has at most one write in flight when the server dies.
  const known = new Map<string, Known>();
  let stopWriting = false;
  let writes = 0;
  let failures = 0;
  const writer = async (w: number): Promise<void> => {
    const random = seededRandom(seed + 1 + w);
    const mine: string[] = [];
    for (let i = 0; !stopWriting; i++) {
      const update = mine.length > 0 && random() < 0.5;
      const name = update ? mine[Math.floor(random() * mine.length)] : `w${w}-cm${i}`;
      const entry = known.get(name) ?? {};
      known.set(name, entry);
      const data = { writer: String(w), step: String(i), payload: `${name}:${i}:${'x'.repeat(Math.floor(random() * 200))}` };
      entry.inFlight = data;
      let res: Response;
      try {
        res = update
          ? await client.send('PUT', cmPath(name), configMap(name, data, String(entry.acked!.rv)))
          : await client.send('POST', cmPath(), configMap(name, data));
      } catch {
        failures++; // the connection died with the server: this write is unacknowledged
        return;
      }
      assert.ok(res.status >= 200 && res.status < 300, `${update ? 'update' : 'create'} ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      entry.acked = { data, rv: Number(res.body.metadata.resourceVersion) };
      entry.inFlight = undefined;
      if (!update) mine.push(name);
      writes++;
    }
  };
  const writers = [0, 1, 2, 3].map((w) => writer(w));

  // kill -9 at a random moment, once some writes are through.
  await waitFor(() => writes >= 20, 10_000, 'the first writes');
  await new Promise((r) => setTimeout(r, killAfterMs));
  await server.kill();
  stopWriting = true;
  await Promise.all(writers);
  firstWatch.close();
  client.close();
  t.diagnostic(`killed after ${killAfterMs} ms: ${writes} acknowledged writes, ${failures} cut off`);

  const ackedRvs = [...known.values()].flatMap((k) => (k.acked ? [k.acked.rv] : []));
  const maxAcked = Math.max(...ackedRvs);
  const lastSeenByWatch = seen.length ? seen[seen.length - 1].rv : Number(startList.body.metadata.resourceVersion);
  assert.ok(writes > 0);

  // Restart on the same data dir.
  server = await startServer({ dataDir, dir });
  client = new Client(server);

  // Every acknowledged write is there, with its content (or with the content of
  // the one write that was in flight for that object, which may have committed).
  const list = await client.send('GET', cmPath());
  assert.equal(list.status, 200);
  const listed = new Map<string, any>(list.body.items.map((o: any) => [o.metadata.name, o]));
  for (const [name, k] of known) {
    const obj = listed.get(name);
    if (!k.acked) {
      if (obj) assert.deepEqual(obj.data, k.inFlight, `${name}: an unacknowledged create left other content`);
      continue;
    }
    assert.ok(obj, `${name}: acknowledged at resourceVersion ${k.acked.rv} but missing after kill -9`);
    const rv = Number(obj.metadata.resourceVersion);
    if (rv === k.acked.rv) assert.deepEqual(obj.data, k.acked.data, `${name}: content differs from the acknowledged write`);
    else {
      assert.ok(rv > k.acked.rv, `${name}: resourceVersion went back from ${k.acked.rv} to ${rv}`);
      assert.deepEqual(obj.data, k.inFlight, `${name}: changed after its last acknowledged write, but not by its in-flight write`);
    }
  }

  // A watch from the last revision the first watch saw resumes: no 410, no replays,
  // and together the two watches saw each acknowledged write exactly once.
  const resumed: typeof seen = [];
  const resumeWatch = await client.watch(`${cmPath()}?watch=true&resourceVersion=${lastSeenByWatch}`, recorder(resumed));
  assert.equal(resumeWatch.status, 200);

  // A new write after the restart gets a larger resourceVersion than any before.
  const after = await client.send('POST', cmPath(), configMap('after-restart', { n: '1' }));
  assert.equal(after.status, 201, JSON.stringify(after.body));
  const afterRv = Number(after.body.metadata.resourceVersion);
  const highestBefore = Math.max(maxAcked, lastSeenByWatch, Number(list.body.metadata.resourceVersion) - 1);
  assert.ok(afterRv > highestBefore, `resourceVersion after restart ${afterRv} is not above ${highestBefore}`);
  assert.ok(afterRv > Math.max(...[...listed.values()].map((o) => Number(o.metadata.resourceVersion))));

  await waitFor(() => resumed.some((e) => e.name === 'after-restart') || watchErrors.length > 0, 5_000, 'the resumed watch to see the new write');
  resumeWatch.close();
  assert.deepEqual(watchErrors, [], 'ERROR events (a 410 would mean the watch could not resume)');
  for (const e of resumed) assert.ok(e.rv > lastSeenByWatch, `replayed event ${e.type} ${e.name}@${e.rv} (resumed from ${lastSeenByWatch})`);
  const rvs = [...seen, ...resumed].map((e) => e.rv);
  for (let i = 1; i < rvs.length; i++) assert.ok(rvs[i] > rvs[i - 1], `watch events out of order or repeated: ${rvs[i - 1]} then ${rvs[i]}`);
  const delivered = new Set(rvs);
  for (const [name, k] of known) if (k.acked) assert.ok(delivered.has(k.acked.rv), `${name}@${k.acked.rv}: acknowledged but never seen by either watch`);
  const last = resumed[resumed.length - 1];
  assert.equal(last.name, 'after-restart');
  assert.equal(last.type, 'ADDED');

  client.close();
  assert.equal(await server.stop(), 0);
});

test('SIGTERM stops the server cleanly and its data persists', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'operant-sigterm-'));
  const dataDir = join(dir, 'data');
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  let server = await startServer({ dataDir, dir });
  let client = new Client(server);
  const rvs: number[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await client.send('POST', cmPath(), configMap(`term-${i}`, { i: String(i) }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    rvs.push(Number(res.body.metadata.resourceVersion));
  }
  client.close();
  const code = await server.stop();
  assert.equal(code, 0, 'exit code after SIGTERM');
  assert.equal(server.child.signalCode, null, 'exited by itself, not by the signal');

  server = await startServer({ dataDir, dir });
  client = new Client(server);
  t.after(async () => {
    client.close();
    if (server.child.exitCode === null && server.child.signalCode === null) await server.kill();
  });
  for (let i = 0; i < 10; i++) {
    const res = await client.send('GET', cmPath(`term-${i}`));
    assert.equal(res.status, 200, `term-${i} after restart: ${JSON.stringify(res.body)}`);
    assert.deepEqual(res.body.data, { i: String(i) });
    assert.equal(Number(res.body.metadata.resourceVersion), rvs[i]);
  }
  const next = await client.send('POST', cmPath(), configMap('term-after', { ok: 'yes' }));
  assert.equal(next.status, 201);
  assert.ok(Number(next.body.metadata.resourceVersion) > Math.max(...rvs));
  client.close();
  assert.equal(await server.stop(), 0);
});

test('kill -9 in the middle of a group commit: acknowledged writes are there, unacknowledged ones whole or absent, watchers saw only what is on disk', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'operant-batch-kill-'));
  const dataDir = join(dir, 'data');
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  let server = await startServer({ dataDir, dir });
  let client = new Client(server);
  t.after(async () => {
    client.close();
    if (server.child.exitCode === null && server.child.signalCode === null) await server.kill();
  });

  const seen: SeenEvent[] = [];
  const watchErrors: string[] = [];
  const recorder = (into: SeenEvent[]) => recordEvents(into, watchErrors);
  const startList = await client.send('GET', cmPath());
  assert.equal(startList.status, 200);
  const startRv = Number(startList.body.metadata.resourceVersion);
  const firstWatch = await client.watch(`${cmPath()}?watch=true&resourceVersion=${startRv}`, recorder(seen));
  assert.equal(firstWatch.status, 200);

  // 48 writers, each with one create in flight at all times: every flush of the
  // server covers many writes, and the kill lands while some are written but not yet flushed.
  const acked = new Map<string, { rv: number; data: Record<string, string> }>();
  const sent = new Map<string, Record<string, string>>();
  let stop = false;
  let cutOff = 0;
  const writer = async (w: number): Promise<void> => {
    for (let i = 0; !stop; i++) {
      const name = `b${w}-${i}`;
      const data = { writer: String(w), i: String(i), payload: 'y'.repeat(100 + ((w * 31 + i) % 400)) };
      sent.set(name, data);
      let res: Response;
      try {
        res = await client.send('POST', cmPath(), configMap(name, data));
      } catch {
        cutOff++;
        return;
      }
      assert.equal(res.status, 201, `create ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      acked.set(name, { rv: Number(res.body.metadata.resourceVersion), data });
    }
  };
  const writers = Array.from({ length: 48 }, (_, w) => writer(w));
  await waitFor(() => acked.size >= 300, 30_000, 'the first 300 acknowledged creates');
  await server.kill();
  stop = true;
  await Promise.all(writers);
  firstWatch.close();
  client.close();
  t.diagnostic(`${acked.size} acknowledged creates, ${cutOff} cut off by the kill, the watch saw ${seen.length} events`);
  assert.ok(cutOff > 0, 'the kill landed while writes were in flight');

  server = await startServer({ dataDir, dir });
  client = new Client(server);
  const list = await client.send('GET', cmPath());
  assert.equal(list.status, 200);
  const listed = new Map<string, any>(list.body.items.map((o: any) => [o.metadata.name, o]));
  let unackedPresent = 0;
  for (const [name, data] of sent) {
    const obj = listed.get(name);
    const ack = acked.get(name);
    if (ack) {
      assert.ok(obj, `${name}: acknowledged at ${ack.rv}, missing after kill -9`);
      assert.equal(Number(obj.metadata.resourceVersion), ack.rv, `${name}: resourceVersion`);
      assert.deepEqual(obj.data, ack.data, `${name}: content`);
    } else if (obj) {
      unackedPresent++;
      assert.deepEqual(obj.data, data, `${name}: an unacknowledged create is there, but not whole`);
    }
  }
  t.diagnostic(`${unackedPresent} unacknowledged creates were flushed before the kill`);

  // The watch saw nothing that is not on disk: each event it got is there, at that resourceVersion.
  for (const e of seen) {
    const obj = listed.get(e.name);
    assert.ok(obj && Number(obj.metadata.resourceVersion) === e.rv, `the watch saw ${e.type} ${e.name}@${e.rv}, which is not on disk`);
  }

  // A watch from before the writes replays one consistent history: in order, the acknowledged
  // writes among it, and ending with exactly the state on disk.
  const replay: typeof seen = [];
  const again = await client.watch(`${cmPath()}?watch=true&resourceVersion=${startRv}`, recorder(replay));
  assert.equal(again.status, 200);
  await waitFor(() => replay.length >= listed.size || watchErrors.length > 0, 10_000, 'the replay from before the writes');
  const after = await client.send('POST', cmPath(), configMap('after-batch-kill', { n: '1' }));
  assert.equal(after.status, 201, JSON.stringify(after.body));
  await waitFor(() => replay.some((e) => e.name === 'after-batch-kill') || watchErrors.length > 0, 10_000, 'the new write on the watch');
  again.close();
  assert.deepEqual(watchErrors, []);
  for (let i = 1; i < replay.length; i++) assert.ok(replay[i].rv > replay[i - 1].rv, `replay out of order: ${replay[i - 1].rv} then ${replay[i].rv}`);
  const replayed = new Map(replay.map((e) => [e.name, e]));
  for (const [name, obj] of listed) {
    assert.equal(replayed.get(name)?.rv, Number(obj.metadata.resourceVersion), `${name}: the replay does not end at the state on disk`);
  }
  for (const e of seen) assert.ok(replayed.has(e.name), `${e.name}: seen before the kill, absent from the replay`);
  const highest = Math.max(...[...listed.values()].map((o) => Number(o.metadata.resourceVersion)), ...[...acked.values()].map((a) => a.rv));
  assert.ok(Number(after.body.metadata.resourceVersion) > highest, `resourceVersion after restart ${after.body.metadata.resourceVersion} is not above ${highest}`);

  client.close();
  assert.equal(await server.stop(), 0);
});
