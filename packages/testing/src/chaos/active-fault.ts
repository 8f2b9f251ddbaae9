/**
 * A fault in force on a proxy: what it is, how many requests it has hit, and
 * whether it hits the next one (its scope, its `probability` drawn from a
 * generator of its own, its `times`).
 */
import { inScope, type Fault } from './faults.js';
import type { OperatorFaultHandler } from './handed-faults.js';
import type { Prng } from './prng.js';
import type { RequestInfo } from './request-info.js';

/**
 * Options of {@link FaultProxy.inject}.
 *
 * @example
 * ```ts
 * import type { InjectOptions } from '@operant/testing';
 *
 * const once: InjectOptions = { times: 1 };
 * ```
 */
export interface InjectOptions {
  /** Remove the fault after it has hit this many requests; default never. */
  times?: number;
  /** Seed of the fault's own `probability` draws; default its id. */
  seed?: number;
  /** Carries out an operator fault (`kill-leader`, `terminate-leader`); without it, one is recorded as a miss. */
  operator?: OperatorFaultHandler;
}

/**
 * A fault in force on a proxy; dispose of it (or `remove()` it) to stop it.
 *
 * @example
 * ```ts
 * declare const proxy: import('@operant/testing').FaultProxy;
 * using slow = proxy.inject({ kind: 'latency', ms: 300, resources: ['configmaps'] });
 * // ... requests for configmaps take 300 ms more until the end of the block
 * ```
 */
export interface InjectedFault extends Disposable {
  readonly id: number;
  readonly fault: Fault;
  /** Requests it has acted on so far. */
  readonly hits: number;
  readonly active: boolean;
  /** Resolves when it is removed. */
  readonly ended: Promise<void>;
  remove(): void;
}

/** A fault in force: it counts its hits, draws its `probability`, and ends once removed or used up. */
export class ActiveFault implements InjectedFault {
  hits = 0;
  active = true;
  readonly ended: Promise<void>;
  private resolveEnded!: () => void;

  constructor(
    readonly id: number,
    readonly fault: Fault,
    private readonly random: Prng,
    private readonly times: number | undefined,
    private readonly onRemove: (f: ActiveFault) => void,
  ) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
  }

  /** Whether the fault is in force for this request: not removed, and in its scope. Counts nothing. */
  covers(info: RequestInfo): boolean {
    return this.active && inScope(this.fault, info);
  }

  /**
   * Whether this request is hit: in scope, and drawn (for faults with a
   * probability). Counts the hit; the proxy removes a fault whose `times` are
   * used up once it has recorded the hit ({@link settle}).
   */
  take(info: RequestInfo): boolean {
    if (!this.covers(info)) return false;
    if (this.times !== undefined && this.hits >= this.times) return false;
    const p = 'probability' in this.fault ? (this.fault.probability ?? 1) : 1;
    if (p < 1 && !this.random.chance(p)) return false;
    this.hits++;
    return true;
  }

  /**
   * For a cluster fault: draws its victim among `candidates` with the fault's
   * own generator and counts the hit; nothing when it is no longer in force
   * or there is nothing to hit.
   */
  strike<T>(candidates: readonly T[]): T | undefined {
    if (!this.active || candidates.length === 0) return undefined;
    this.hits++;
    return this.random.pick(candidates);
  }

  /** Removes the fault when it has hit as many requests as it was allowed. */
  settle(): void {
    if (this.times !== undefined && this.hits >= this.times) this.remove();
  }

  remove(): void {
    if (!this.active) return;
    this.active = false;
    this.onRemove(this);
    this.resolveEnded();
  }

  [Symbol.dispose](): void {
    this.remove();
  }
}
