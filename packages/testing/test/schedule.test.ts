/**
 * Seeded schedules, the PRNG under them, and how the proxy reads requests:
 * pure functions, no server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chaos, defaultWindows, faultKinds, Prng, requestInfo } from '../src/index.js';

test('mulberry32 gives its reference sequence, the same for the same seed', () => {
  // The first outputs of mulberry32 seeded with 1, as the reference C implementation gives them.
  const a = new Prng(1);
  const first = [a.next(), a.next(), a.next()];
  assert.deepEqual(first.map((x) => Math.floor(x * 4294967296)), [2693262067, 11749833, 2265367787]);
  const b = new Prng(1);
  assert.deepEqual([b.next(), b.next(), b.next()], first);
  assert.notDeepEqual(new Prng(2).next(), first[0]);
});

test('the same seed gives the same faults at the same offsets; another seed, others', () => {
  const options = { duration: 15_000, faults: faultKinds } as const;
  const one = chaos({ ...options, seed: 20240601 });
  const two = chaos({ ...options, seed: 20240601 });
  assert.deepEqual(two.entries, one.entries);
  assert.equal(two.describe(), one.describe());
  assert.notDeepEqual(chaos({ ...options, seed: 20240602 }).entries, one.entries);
  // About one fault per 700 ms, each kind among them, every window inside the schedule.
  assert.ok(one.entries.length > 10 && one.entries.length < 40, `${one.entries.length} faults`);
  assert.deepEqual(new Set(one.entries.map((e) => e.fault.kind)).size > 4, true);
  for (const e of one.entries) {
    assert.ok(e.at >= 0 && e.at + e.durationMs <= 15_000);
    const [min, max] = defaultWindows[e.fault.kind];
    assert.ok(e.durationMs <= max && (e.durationMs >= min || e.at + e.durationMs === 15_000), `${e.fault.kind} window ${e.durationMs}`);
  }
  for (let i = 1; i < one.entries.length; i++) assert.ok(one.entries[i]!.at >= one.entries[i - 1]!.at);
});

test('a schedule without a seed makes one up, and says which', () => {
  const s = chaos({ duration: 1000 });
  assert.ok(Number.isInteger(s.seed));
  assert.match(s.describe(), new RegExp(`^chaos schedule: seed ${s.seed}, 1.00s, ${s.entries.length} faults`));
});

test('templates fix parameters and scopes, and weights bias the picks', () => {
  const s = chaos({
    seed: 7,
    duration: 60_000,
    meanGapMs: 100,
    faults: [
      { kind: 'error', code: 504, applied: true, verbs: ['create'], resources: ['deployments.apps'], weight: 9, windowMs: [50, 60] },
      { kind: 'latency', ms: 250 },
    ],
    scope: { namespaces: ['team-a'] },
  });
  const errors = s.entries.filter((e) => e.fault.kind === 'error');
  const latencies = s.entries.filter((e) => e.fault.kind === 'latency');
  assert.ok(errors.length > latencies.length * 5, `${errors.length} errors, ${latencies.length} latencies`);
  for (const e of errors) {
    assert.deepEqual(e.fault, { kind: 'error', code: 504, applied: true, probability: 0.5, verbs: ['create'], resources: ['deployments.apps'] });
    assert.ok(e.durationMs >= 50 && e.durationMs <= 60);
  }
  // A template without a scope of its own gets the schedule's.
  for (const e of latencies) assert.deepEqual(e.fault, { kind: 'latency', ms: 250, namespaces: ['team-a'] });
  assert.match(s.describe(), /error 504 after applying p=0.5 on create deployments.apps/);
});

test('a plan puts its faults at their offsets every round, beside the random ones, which stay those of the seed', () => {
  const random = { seed: 42, duration: 30_000, faults: ['latency', 'error'] } as const;
  const plan = {
    everyMs: 10_000,
    faults: [
      { kind: 'cut-watch', at: 500, jitterMs: 200, windowMs: [1200, 1500] },
      { kind: 'expire', at: 900, windowMs: [3000, 3000] },
    ],
  } as const;
  const planned = chaos({ ...random, plan });
  const plain = chaos(random);
  // The random faults are the seed's, at their offsets, whatever the plan.
  const randomOnes = planned.entries.filter((e) => e.fault.kind === 'latency' || e.fault.kind === 'error');
  assert.deepEqual(randomOnes.map(({ at, durationMs, fault }) => ({ at, durationMs, fault })), plain.entries.map(({ at, durationMs, fault }) => ({ at, durationMs, fault })));
  // Each planned fault once a round, at its offset (plus its jitter), with a window from its template.
  const cuts = planned.entries.filter((e) => e.fault.kind === 'cut-watch');
  const expires = planned.entries.filter((e) => e.fault.kind === 'expire');
  assert.deepEqual(expires.map((e) => [e.at, e.durationMs]), [[900, 3000], [10_900, 3000], [20_900, 3000]]);
  assert.equal(cuts.length, 3);
  cuts.forEach((e, round) => {
    assert.ok(e.at >= round * 10_000 + 500 && e.at <= round * 10_000 + 700, `cut-watch at ${e.at}`);
    assert.ok(e.durationMs >= 1200 && e.durationMs <= 1500);
  });
  // In order of start, indexed in that order; the same seed, the same schedule; a shorter one is its beginning.
  planned.entries.forEach((e, i) => {
    assert.equal(e.index, i);
    if (i > 0) assert.ok(e.at >= planned.entries[i - 1]!.at);
  });
  assert.equal(chaos({ ...random, plan }).describe(), planned.describe());
  const short = chaos({ ...random, duration: 10_000, plan });
  const starts = (entries: typeof planned.entries) => entries.map(({ index, at, fault }) => ({ index, at, fault }));
  assert.deepEqual(starts(planned.entries.slice(0, short.entries.length)), starts(short.entries));
  assert.throws(() => chaos({ ...random, plan: { everyMs: 1000, faults: [{ kind: 'expire', at: 900, jitterMs: 100 }] } }), /the plan's expire at 900 \(\+100\) must start within its 1000 ms/);
});

test('a schedule refuses what it cannot play', () => {
  assert.throws(() => chaos({ duration: 0 }), /duration must be positive/);
  assert.throws(() => chaos({ duration: 10, seed: 1.5 }), /seed must be an integer/);
  assert.throws(() => chaos({ duration: 10, faults: ['meteor' as never] }), /unknown fault kind "meteor"/);
});

test('a schedule refuses numbers that would hang it, fire its timers at once, or mean nothing', () => {
  // A mean gap of 0 or less never moved the schedule on: chaos() looped forever.
  assert.throws(() => chaos({ duration: 1000, meanGapMs: 0 }), /^RangeError: chaos: meanGapMs must be a positive number of ms, got 0$/);
  assert.throws(() => chaos({ duration: 1000, meanGapMs: -1 }), /meanGapMs must be a positive number of ms, got -1/);
  assert.throws(() => chaos({ duration: Infinity }), /duration must be at most 2147483647 ms/);
  assert.throws(() => chaos({ duration: 3_600_000, meanGapMs: 1 }), /makes about 3600000 faults; at most 1000000/);
  assert.throws(() => chaos({ duration: 1000, faults: [{ kind: 'error', probability: 3 }] }), /chaos: error: probability must be from 0 to 1, got 3/);
  assert.throws(() => chaos({ duration: 1000, faults: [{ kind: 'latency', windowMs: [500, 100] }] }), /latency: windowMs must be \[shortest, longest\]/);
  assert.throws(() => chaos({ duration: 1000, faults: [{ kind: 'latency', ms: 2 ** 31 }] }), /latency: ms must be from 0 to 2147483647/);
  assert.throws(() => chaos({ duration: 1000, faults: [{ kind: 'error', weight: -1 }] }), /error: weight must be a number from 0, got -1/);
  assert.throws(() => chaos({ duration: 1000, faults: [{ kind: 'error', weight: 0 }] }), /every fault has weight 0/);
  assert.throws(() => chaos({ duration: 1000, faults: [{ kind: 'error', code: 502 as never }] }), /error: code must be one of 500, 503, 504, 429, got 502/);
  assert.throws(() => chaos({ duration: 1000, plan: { everyMs: 500, faults: [{ kind: 'latency', at: 0, ms: -5 }] } }), /latency in the plan: ms must be from 0/);
});

test('requests are read as kube-apiserver reads them', () => {
  const pick = (method: string, target: string) => {
    const { verb, group, version, resource, subresource, namespace, name, resourceVersion, isResourceRequest } = requestInfo(method, target);
    return { verb, group, version, resource, subresource, namespace, name, resourceVersion, isResourceRequest };
  };
  assert.deepEqual(pick('GET', '/apis/apps/v1/namespaces/team-a/deployments?watch=true&resourceVersion=42'), {
    verb: 'watch', group: 'apps', version: 'v1', resource: 'deployments', subresource: undefined, namespace: 'team-a', name: undefined, resourceVersion: '42', isResourceRequest: true,
  });
  assert.equal(pick('GET', '/api/v1/pods').verb, 'list');
  assert.equal(pick('GET', '/api/v1/namespaces/a/pods/web').verb, 'get');
  assert.equal(pick('POST', '/api/v1/namespaces/a/pods').verb, 'create');
  assert.equal(pick('PUT', '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/a/foos/x/status').subresource, 'status');
  assert.equal(pick('PATCH', '/api/v1/namespaces/a/pods/web').verb, 'patch');
  assert.equal(pick('DELETE', '/api/v1/namespaces/a/pods/web').verb, 'delete');
  assert.equal(pick('DELETE', '/api/v1/namespaces/a/pods').verb, 'deletecollection');
  assert.deepEqual(pick('GET', '/api/v1/namespaces/team-a'), { ...pick('GET', '/api/v1/namespaces/team-a'), resource: 'namespaces', name: 'team-a', namespace: 'team-a' });
  assert.equal(pick('PUT', '/api/v1/namespaces/team-a/finalize').subresource, 'finalize');
  assert.equal(pick('GET', '/api/v1/watch/namespaces/a/pods').verb, 'watch');
  assert.deepEqual(pick('GET', '/apis/apps/v1').isResourceRequest, false);
  assert.deepEqual(pick('GET', '/version').isResourceRequest, false);
  // Read without a URL parse when the path is plain; dot segments and the like are normalised as a URL parser does.
  assert.equal(pick('GET', '/api/v1/namespaces/a/configmaps/with%20space').name, 'with space');
  assert.deepEqual(pick('GET', '/api/v1/namespaces/a/../b/pods/web?resourceVersion=7'), pick('GET', '/api/v1/namespaces/b/pods/web?resourceVersion=7'));
  assert.deepEqual(pick('GET', '/api/v1/namespaces/a/pods/web#frag'), pick('GET', '/api/v1/namespaces/a/pods/web'));
  assert.equal(pick('GET', '/api/v1/pods?watch=1&resourceVersion=').resourceVersion, '');
});
