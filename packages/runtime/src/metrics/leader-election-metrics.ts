/**
 * What leader election reports, with client-go's meanings, and its Prometheus
 * form: `leader_election_master_status{name}` (1 leading, 0 standing by) and
 * `leader_election_slowpath_total{name}`. `name` is the lease's name (the
 * election id), as controller-runtime labels it.
 */
import { Counter, Gauge, type Registry } from './prom-client.js';

/**
 * Receives leader-election transitions.
 *
 * @example
 * ```ts
 * import type { LeaderElectionMetrics } from '@operant/runtime';
 *
 * const leading = new Set<string>();
 * const metrics: LeaderElectionMetrics = {
 *   leaderOn: (name) => leading.add(name),
 *   leaderOff: (name) => leading.delete(name),
 *   slowpathExercised: () => {},
 * };
 * ```
 */
export interface LeaderElectionMetrics {
  /** This process became the leader of `name`. */
  leaderOn(name: string): void;
  /** This process is not (or no longer) the leader of `name`. */
  leaderOff(name: string): void;
  /** A renewal had to re-read the lease (its optimistic update failed). */
  slowpathExercised(name: string): void;
}

const noop = (): void => {};

/**
 * Records nothing.
 *
 * @example
 * ```ts
 * import { LeaderElector, leaderIdentity, LeaseLock } from '@operant/runtime';
 * import { noopLeaderElectionMetrics } from '@operant/runtime/metrics';
 *
 * const lock = new LeaseLock(client, { name: 'my-operator', namespace: 'default', identity: leaderIdentity() });
 * new LeaderElector(lock, { name: 'my-operator', metrics: noopLeaderElectionMetrics });
 * ```
 */
export const noopLeaderElectionMetrics: LeaderElectionMetrics = Object.freeze({ leaderOn: noop, leaderOff: noop, slowpathExercised: noop });

/**
 * Records leader election into a registry.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * import { PrometheusLeaderElectionMetrics } from '@operant/runtime/metrics';
 *
 * const registry = new Registry();
 * const metrics = new PrometheusLeaderElectionMetrics(registry);
 * metrics.leaderOn('sidecarset-operator');
 * console.log(await registry.metrics()); // leader_election_master_status{name="sidecarset-operator"} 1
 * ```
 */
export class PrometheusLeaderElectionMetrics implements LeaderElectionMetrics {
  private readonly status: Gauge<'name'>;
  private readonly slowpath: Counter<'name'>;

  constructor(registry: Registry) {
    this.status = new Gauge({
      name: 'leader_election_master_status',
      help:
        "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ['name'],
      registers: [registry],
    });
    this.slowpath = new Counter({
      name: 'leader_election_slowpath_total',
      help: "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ['name'],
      registers: [registry],
    });
  }

  leaderOn(name: string): void {
    this.status.set({ name }, 1);
  }

  leaderOff(name: string): void {
    this.status.set({ name }, 0);
  }

  slowpathExercised(name: string): void {
    this.slowpath.inc({ name });
  }
}
