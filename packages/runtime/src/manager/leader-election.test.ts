/**
 * Leader election on a real Lease in the embedded API server: the Lease's
 * wire format, one leader among candidates, release on cancel and immediate
 * takeover, takeover only after expiry when the leader stops without
 * releasing, and stepping down when the lease is taken away.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry } from '../metrics/registry.js';
import { useApiServer } from '../testdata/api-server.js';
import { leaderIdentity } from './identity.js';
import { LeaderElector, type LeaderElectorOptions } from './leader-election.js';
import { Lease } from '../builtins.js';
import { microTime } from '../time.js';
import { LeaseLock } from './lease-lock.js';

const timing = { leaseDurationMs: 1000, renewDeadlineMs: 700, retryPeriodMs: 100 };

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 5000, refresh?: () => Promise<void>): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    await refresh?.();
    if (predicate()) return;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Candidate {
  elector: LeaderElector;
  stop: AbortController;
  run: Promise<string>;
  leading: boolean;
  started: number;
  stopped: number;
}

describe('LeaderElector against the embedded server', () => {
  const api = useApiServer();
  let leaseNo = 0;

  function candidate(name: string, options: Partial<LeaderElectorOptions> = {}): Candidate {
    const lock = new LeaseLock(api.client, { name, namespace: 'default', identity: leaderIdentity() });
    const c: Candidate = { stop: new AbortController(), leading: false, started: 0, stopped: 0 } as Candidate;
    c.elector = new LeaderElector(lock, {
      name,
      ...timing,
      ...options,
      onStartedLeading: () => {
        c.leading = true;
        c.started++;
      },
      onStoppedLeading: () => {
        c.leading = false;
        c.stopped++;
      },
    });
    c.run = c.elector.run(c.stop.signal);
    return c;
  }

  test('the leader writes a Lease as client-go does and renews it', async () => {
    const name = `le-${++leaseNo}`;
    const metrics = new MetricsRegistry({ processMetrics: false });
    const a = candidate(name, { metrics: metrics.leaderElection });
    await waitFor(() => a.leading, 'leadership');
    assert.match(await metrics.text(), new RegExp(`^leader_election_master_status\\{name="${name}"\\} 1$`, 'm'));
    const first = await api.client.get(Lease, name, { namespace: 'default' });
    assert.equal(first.spec?.holderIdentity, a.elector.identity);
    assert.equal(first.spec?.leaseDurationSeconds, 1);
    assert.equal(first.spec?.leaseTransitions, 0);
    assert.match(first.spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(Date.parse(first.spec?.acquireTime ?? '') <= Date.parse(first.spec?.renewTime ?? ''));
    await new Promise((r) => setTimeout(r, 350));
    const later = await api.client.get(Lease, name, { namespace: 'default' });
    assert.ok(Date.parse(later.spec?.renewTime ?? '') > Date.parse(first.spec?.renewTime ?? ''), 'renewTime advances');
    assert.equal(later.spec?.acquireTime, first.spec?.acquireTime, 'acquireTime is kept while leading');
    a.stop.abort();
    assert.equal(await a.run, 'cancelled');
    assert.match(await metrics.text(), new RegExp(`^leader_election_master_status\\{name="${name}"\\} 0$`, 'm'));
  });

  test('one leader among three; cancelling it releases the lease and another takes over at once', async () => {
    const name = `le-${++leaseNo}`;
    const cs = [candidate(name), candidate(name), candidate(name)];
    await waitFor(() => cs.some((c) => c.leading), 'a leader');
    await new Promise((r) => setTimeout(r, 1500)); // longer than a lease duration: nobody else may take over meanwhile
    assert.equal(cs.filter((c) => c.leading).length, 1);
    const leader = cs.find((c) => c.leading)!;
    assert.equal(leader.started, 1);

    const t0 = performance.now();
    leader.stop.abort();
    assert.equal(await leader.run, 'cancelled');
    assert.equal(leader.stopped, 1);
    const released = await api.client.get(Lease, name, { namespace: 'default' });
    // Released (client-go: empty holder, 1 s), unless a candidate was already quicker.
    if (!released.spec?.holderIdentity) assert.equal(released.spec?.leaseDurationSeconds, 1);
    const rest = cs.filter((c) => c !== leader);
    await waitFor(() => rest.some((c) => c.leading), 'a new leader', 2000);
    const takeoverMs = performance.now() - t0;
    assert.ok(takeoverMs < 600, `took over ${takeoverMs.toFixed(0)} ms after the release, well within the 1 s lease`);
    const lease = await api.client.get(Lease, name, { namespace: 'default' });
    assert.equal(lease.spec?.leaseTransitions, 1);
    assert.equal(lease.spec?.holderIdentity, rest.find((c) => c.leading)!.elector.identity);
    for (const c of rest) c.stop.abort();
    await Promise.all(rest.map((c) => c.run));
  });

  test('the release still happens when the Lease changed behind the leader (a renewal cut short that reached the server)', async () => {
    const name = `le-${++leaseNo}`;
    const a = candidate(name, { releaseOnCancel: false });
    await waitFor(() => a.leading, 'a leading');
    a.stop.abort();
    await a.run;
    // The leader's copy of the Lease is now stale, as after an aborted renewal that was applied.
    const lease = await api.client.get(Lease, name, { namespace: 'default' });
    await api.client.update(Lease, { ...lease, metadata: { ...lease.metadata, labels: { touched: 'yes' } } });
    assert.equal(await a.elector.release(), true);
    const released = await api.client.get(Lease, name, { namespace: 'default' });
    assert.equal(released.spec?.holderIdentity, '');
    assert.equal(released.spec?.leaseDurationSeconds, 1);
    assert.equal(released.metadata.labels?.touched, 'yes');
  });

  test('a leader that stops renewing without releasing is replaced only after the lease expires', async () => {
    const name = `le-${++leaseNo}`;
    const a = candidate(name, { releaseOnCancel: false });
    await waitFor(() => a.leading, 'a leading');
    const b = candidate(name);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(b.leading, false);

    const t0 = performance.now();
    a.stop.abort(); // like a crash: no release
    await a.run;
    assert.equal((await api.client.get(Lease, name, { namespace: 'default' })).spec?.holderIdentity, a.elector.identity);
    await waitFor(() => b.leading, 'b to take over', 4000);
    const takeoverMs = performance.now() - t0;
    assert.ok(takeoverMs >= 800, `took over after ${takeoverMs.toFixed(0)} ms: not before the 1 s lease expired`);
    assert.ok(takeoverMs < 1800, `took over after ${takeoverMs.toFixed(0)} ms: within the lease duration plus a retry`);
    assert.equal((await api.client.get(Lease, name, { namespace: 'default' })).spec?.leaseTransitions, 1);
    b.stop.abort();
    await b.run;
  });

  test('a leader whose lease is taken away steps down within the renew deadline', async () => {
    const name = `le-${++leaseNo}`;
    const metrics = new MetricsRegistry({ processMetrics: false });
    let lastText = '';
    const a = candidate(name, { metrics: metrics.leaderElection });
    await waitFor(() => a.leading, 'a leading');
    // A foreign write that leaves the holder alone: the optimistic renewal conflicts, the slow path keeps the lease.
    await api.client.patch(Lease, name, { metadata: { labels: { touched: 'yes' } } }, { namespace: 'default' });
    await waitFor(() => /leader_election_slowpath_total\{name="le-\d+"\} 1/.test(lastText), 'the slow path', 3000, async () => {
      lastText = await metrics.text();
    });
    assert.equal(a.leading, true);
    // Another party takes the lease by force, with a long duration.
    const lease = await api.client.get(Lease, name, { namespace: 'default' });
    const now = microTime(new Date());
    await api.client.update(Lease, { ...lease, spec: { ...lease.spec, holderIdentity: 'usurper', leaseDurationSeconds: 60, renewTime: now, acquireTime: now } });
    const t0 = performance.now();
    assert.equal(await a.run, 'lost');
    const lostMs = performance.now() - t0;
    assert.ok(lostMs < 1000, `stepped down after ${lostMs.toFixed(0)} ms`);
    assert.equal(a.leading, false);
    assert.equal(a.stopped, 1);
    assert.equal(a.elector.leader, 'usurper');
    assert.match(await metrics.text(), new RegExp(`^leader_election_master_status\\{name="${name}"\\} 0$`, 'm'));
  });

  test('an election waits for a lease held by someone else, and cancels cleanly while waiting', async () => {
    const name = `le-${++leaseNo}`;
    const now = microTime(new Date());
    await api.client.create(Lease, { metadata: { name, namespace: 'default' }, spec: { holderIdentity: 'other', leaseDurationSeconds: 60, renewTime: now, acquireTime: now } });
    const a = candidate(name);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(a.leading, false);
    assert.equal(a.elector.leader, 'other');
    a.stop.abort();
    assert.equal(await a.run, 'cancelled');
    assert.equal(a.started, 0);
    assert.equal(a.stopped, 0);
    assert.equal((await api.client.get(Lease, name, { namespace: 'default' })).spec?.holderIdentity, 'other');
  });
});

describe('LeaderElector options', () => {
  test('durations are checked as client-go checks them', () => {
    const lock = { identity: 'x', describe: () => 'default/x', get: async () => undefined, create: async () => Promise.reject(new Error('no')), update: async () => Promise.reject(new Error('no')) };
    assert.throws(() => new LeaderElector(lock, { name: 'x', leaseDurationMs: 1000, renewDeadlineMs: 1000, retryPeriodMs: 100 }), /leaseDurationMs/);
    assert.throws(() => new LeaderElector(lock, { name: 'x', leaseDurationMs: 1000, renewDeadlineMs: 110, retryPeriodMs: 100 }), /renewDeadlineMs/);
    assert.throws(() => new LeaderElector(lock, { name: 'x', retryPeriodMs: 0 }), /retryPeriodMs/);
    assert.doesNotThrow(() => new LeaderElector(lock, { name: 'x' }));
  });
});
