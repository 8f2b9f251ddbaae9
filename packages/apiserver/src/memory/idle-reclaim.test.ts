import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { collectGarbage, startIdleReclaim } from './idle-reclaim.js';
import { allocBytes, concatBytes, largeBufferBytes } from '../storage/large-buffers.js';

const mib = 1024 * 1024;

/** An event loop that was idle since the last reading (the real one is busy now and then under a loaded test run). */
const idle = (): number => 0;

/** Resolves once `done()` holds, checking every few milliseconds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

describe('idle memory reclaim', () => {
  it('collectGarbage collects what nothing references, without --expose-gc', async () => {
    let big: { text: string } | undefined = { text: 'x'.repeat(4 * mib) + String(Math.random()) };
    const ref = new WeakRef(big);
    big = undefined;
    // A weak target survives the turn it was made in; then a full collection takes it.
    await new Promise((r) => setTimeout(r, 0));
    await collectGarbage();
    assert.equal(ref.deref(), undefined);
  });

  it('reclaims once RSS has grown by more than a sixth and stopped growing, then not again at that level', async () => {
    let rss = 100 * mib;
    const reclaims: string[] = [];
    const r = startIdleReclaim({
      checkMs: 2,
      minSpacingMs: 0,
      busy: idle,
      rss: () => rss,
      collect: async () => void reclaims.push('collect'),
      trim: () => void reclaims.push('trim'),
    });
    try {
      await new Promise((r) => setTimeout(r, 20)); // the first reading is the reference
      rss = 110 * mib; // a tenth more: no reclaim
      await new Promise((r) => setTimeout(r, 30));
      assert.deepEqual(reclaims, []);
      rss = 200 * mib;
      await until(() => reclaims.length >= 2);
      assert.deepEqual(reclaims.slice(0, 2), ['collect', 'trim']);
    } finally {
      r.stop();
    }
  });

  it('after reclaims that give back little, takes the new level as the reference', async () => {
    let rss = 100 * mib;
    let collections = 0;
    const r = startIdleReclaim({ checkMs: 2, minSpacingMs: 0, busy: idle, rss: () => rss, collect: async () => void collections++, trim: undefined });
    try {
      await new Promise((r) => setTimeout(r, 20));
      rss = 300 * mib; // live data grew: nothing to give back
      await until(() => collections === 3);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(collections, 3);
    } finally {
      r.stop();
    }
  });

  it('a hint reclaims at once (unless RSS is still growing) when RSS is over the lowest level a reclaim left', async () => {
    let rss = 100 * mib;
    let collections = 0;
    const r = startIdleReclaim({
      checkMs: 60_000,
      busy: idle,
      rss: () => rss,
      collect: async () => {
        collections++;
      },
      trim: undefined,
    });
    try {
      r.hint(); // the first reading (100 MiB) is the reference
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(collections, 0);
      rss = 200 * mib;
      r.hint(); // RSS grew since the last reading: still growing, no reclaim yet
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(collections, 0);
      r.hint();
      await until(() => collections === 1);
    } finally {
      r.stop();
    }
  });

  it('waits while the event loop is busy: neither growth nor a hint reclaims until an interval was idle', async () => {
    let rss = 100 * mib;
    let busy = 0.5;
    let collections = 0;
    const r = startIdleReclaim({ checkMs: 60_000, busy: () => busy, rss: () => rss, collect: async () => void collections++, trim: undefined });
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    try {
      r.hint(true); // the first reading (100 MiB) is the reference
      await turn();
      rss = 200 * mib;
      r.hint(true); // growing
      await turn();
      r.hint(true); // stopped growing, but serving: no stop-the-world collection now
      await turn();
      await turn();
      assert.equal(collections, 0);
      busy = 0.05;
      r.hint(false); // the urgent hint above is still pending: the first idle check acts on it
      await until(() => collections === 1);
    } finally {
      r.stop();
    }
  });

  it('a hint just before or after stop() reclaims nothing (a stopping server closes its connections after its reclaimer)', async () => {
    let rss = 100 * mib;
    let collections = 0;
    let trims = 0;
    const r = startIdleReclaim({ checkMs: 60_000, busy: idle, rss: () => rss, collect: async () => void collections++, trim: () => void trims++ });
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    r.hint(true); // the first reading (100 MiB) is the reference
    await turn();
    rss = 200 * mib;
    r.hint(true); // growing
    await turn();
    r.hint(true);
    await until(() => trims === 1); // a reclaim, done but for its last step; the floor is 200 MiB
    await turn();
    rss = 300 * mib;
    r.hint(true); // growing again
    await turn();
    // Over the floor and no longer growing: before stop() such a hint reclaims, its check one turn later.
    r.hint(true);
    r.stop();
    r.hint(true);
    await turn();
    await turn();
    assert.equal(collections, 1);
  });
});

describe('large buffers', () => {
  it('a large buffer lives in a resizable ArrayBuffer of its own (V8 maps it, and unmaps it when collected)', () => {
    const big = allocBytes(largeBufferBytes);
    assert.equal((big.buffer as ArrayBuffer & { resizable: boolean }).resizable, true);
    assert.equal(big.byteOffset, 0);
    assert.equal(big.length, largeBufferBytes);
    const small = allocBytes(100);
    assert.equal((small.buffer as ArrayBuffer & { resizable: boolean }).resizable, false);
  });

  it('concatBytes makes the bytes Buffer.concat makes', () => {
    const parts = [Buffer.from('{"a":'), Buffer.alloc(largeBufferBytes, 'x'), Buffer.from('}\n')];
    const size = parts.reduce((n, p) => n + p.length, 0);
    const joined = concatBytes(parts, size);
    assert.ok(joined.equals(Buffer.concat(parts)));
    assert.equal(joined.toString('utf8').slice(-3), 'x}\n');
  });
});
