/**
 * Seeded chaos schedules: from a seed, a duration and the faults allowed, the
 * list of faults to inject and when (Jepsen's nemesis schedule, in small).
 * Faults start at the arrivals of a Poisson process (exponential gaps), each
 * picked by weight among the templates, with its window length and whatever
 * parameters its template leaves open drawn from the same generator; windows
 * may overlap. A plan adds faults at planned offsets (with a drawn jitter),
 * for kinds that strike only when their target is there. The schedule is a
 * pure function of its options: the same seed
 * gives the same faults at the same offsets, on any machine. What happens to
 * each request within a window is reproducible too, as far as the requests
 * are the same: each window draws its `probability` from a generator of its own.
 */
import { allFaultKinds, describeFault, errorCodes, faultKinds, type ErrorCode, type Fault, type FaultKind, type FaultScope } from './faults.js';
import { deriveSeed, Prng, randomSeed } from './prng.js';

/**
 * A fault a schedule may inject: a kind, or a fault with some parameters fixed,
 * plus how often it is picked and how long its windows last.
 *
 * @example
 * ```ts
 * import type { FaultTemplate } from '@operant/testing';
 *
 * const templates: FaultTemplate[] = [
 *   'cut-watch',
 *   { kind: 'error', code: 504, applied: true, verbs: ['create'], weight: 3 },
 *   { kind: 'partition', windowMs: [1_000, 3_000] },
 * ];
 * ```
 */
export type FaultTemplate =
  | FaultKind
  | (FaultScope & {
      kind: FaultKind;
      /** Relative frequency; default 1. */
      weight?: number;
      /** The shortest and longest window; defaults depend on the kind (see {@link defaultWindows}). */
      windowMs?: readonly [number, number];
      ms?: number;
      code?: ErrorCode;
      retryAfterSeconds?: number;
      applied?: boolean;
      probability?: number;
      labelSelector?: string;
    });

/**
 * Options of {@link chaos}.
 *
 * @example
 * ```ts
 * import type { ChaosOptions } from '@operant/testing';
 *
 * const options: ChaosOptions = { seed: 1234, duration: 12_000, faults: ['error', 'cut-watch', 'expire'], meanGapMs: 400 };
 * ```
 */
export interface ChaosOptions {
  /** The seed; default a random one (printed when the schedule is played, so the run can be replayed). */
  seed?: number;
  /** How long the schedule lasts, ms. */
  duration: number;
  /** What may be injected; default every request fault kind ({@link faultKinds}), unscoped; cluster, operator and server faults only when listed. */
  faults?: readonly FaultTemplate[];
  /** The mean time between the starts of two faults, more than 0; default 700 ms. */
  meanGapMs?: number;
  /** Applied to every fault whose template has no scope of its own, e.g. `{ namespaces: ['team-a'] }`. */
  scope?: FaultScope;
  /**
   * Faults at planned offsets, besides the random ones: for a fault that can
   * strike only when its target is there (a watch resuming, for `expire`; a
   * leader, for `kill-leader`; a server up, for a cluster fault), so that a
   * run proves each kind, whatever its timing. See {@link ChaosPlan}.
   */
  plan?: ChaosPlan;
}

/**
 * Faults a schedule has at planned offsets, besides its random ones, played
 * again every `everyMs` while the schedule lasts (a 60 s schedule of a 15 s
 * plan plays it four times). Each fault starts at its `at` plus up to
 * `jitterMs`, its window and open parameters drawn as for a random fault, from
 * a generator of the plan's own (derived from the seed): the random faults stay
 * those of the seed, and a longer schedule starts with the faults of a shorter one.
 *
 * @example
 * ```ts
 * import { chaos, faultKinds, type ChaosPlan } from '@operant/testing';
 *
 * // Watches cut, then a window of 410s long enough to cover their resumption (~1 s of back-off).
 * const plan: ChaosPlan = {
 *   everyMs: 10_000,
 *   faults: [
 *     { kind: 'cut-watch', at: 500, windowMs: [1_200, 1_500] },
 *     { kind: 'expire', at: 900, windowMs: [3_000, 3_500] },
 *   ],
 * };
 * const schedule = chaos({ seed: 8, duration: 30_000, faults: faultKinds.filter((k) => k !== 'expire'), plan });
 * ```
 */
export interface ChaosPlan {
  /** How often the plan starts again, ms; every planned fault must start within it (`at + jitterMs < everyMs`). */
  everyMs: number;
  faults: readonly PlannedFault[];
}

/**
 * A fault of a {@link ChaosPlan}: a template, and where in the plan it starts.
 *
 * @example
 * ```ts
 * import type { PlannedFault } from '@operant/testing';
 *
 * const killAfterSettling: PlannedFault = { kind: 'kill-leader', at: 2_000, jitterMs: 300 };
 * ```
 */
export type PlannedFault = Exclude<FaultTemplate, FaultKind> & {
  /** Its offset in the plan, ms. */
  at: number;
  /** Up to this much later, drawn; default 0. */
  jitterMs?: number;
};

/**
 * One fault of a schedule: active from `at` for `durationMs` (ms since the schedule started).
 *
 * @example
 * ```ts
 * import type { ScheduledFault } from '@operant/testing';
 *
 * const entry: ScheduledFault = { index: 0, at: 420, durationMs: 900, fault: { kind: 'error', code: 503 } };
 * ```
 */
export interface ScheduledFault {
  /** Its place in the schedule (also the salt of its own random draws). */
  index: number;
  at: number;
  durationMs: number;
  fault: Fault;
}

/**
 * A schedule: its seed, its duration and its faults, in order of start.
 *
 * @example
 * ```ts
 * import { chaos } from '@operant/testing';
 *
 * const schedule = chaos({ seed: 7, duration: 10_000 });
 * console.log(schedule.describe()); // one line per fault: offset, window, what
 * ```
 */
export interface ChaosSchedule {
  readonly seed: number;
  readonly duration: number;
  readonly entries: readonly ScheduledFault[];
  /** The schedule as text, one line per fault: `+1.42s for 0.80s  error 503 on create deployments`. */
  describe(): string;
}

/**
 * How long a window of each kind lasts by default, [shortest, longest] ms:
 * long enough for informers and work queues to feel it, short enough that a
 * schedule of a few seconds holds several.
 *
 * @example
 * ```ts
 * import { defaultWindows } from '@operant/testing';
 *
 * const [min, max] = defaultWindows.partition;
 * ```
 */
export const defaultWindows: Readonly<Record<FaultKind, readonly [number, number]>> = Object.freeze({
  latency: [500, 2000],
  error: [300, 1500],
  reset: [300, 1500],
  'cut-watch': [100, 600],
  expire: [200, 1000],
  'drop-bookmarks': [1000, 4000],
  partition: [300, 1500],
  // The deletion is done when the window opens; the window only marks it in the timeline.
  'delete-pod': [100, 500],
  // The others last their window: a pod crash-looping, a node silent or failing its pulls meanwhile.
  'crash-container': [1000, 4000],
  'node-not-ready': [2000, 6000],
  'image-pull-failure': [1000, 4000],
  // The kill is done when the window opens; the replacement's start is what follows.
  'kill-leader': [100, 500],
  // The window is how long the handler may wait for a reconcile to be in flight.
  'terminate-leader': [1000, 3000],
  // The server is down for its window: clients see refused connections, watches end.
  'restart-server': [300, 1500],
  // The compaction is done when the window opens.
  compact: [100, 300],
});

/**
 * Makes a seeded schedule of faults.
 *
 * @example
 * ```ts
 * import { chaos } from '@operant/testing';
 *
 * const schedule = chaos({
 *   seed: 1234,
 *   duration: 12_000,
 *   faults: ['latency', 'cut-watch', 'expire', { kind: 'error', code: 504, applied: true, verbs: ['create'] }],
 * });
 * chaos({ seed: 1234, duration: 12_000 }).entries; // the same seed: the same faults at the same offsets
 * ```
 */
export function chaos(options: ChaosOptions): ChaosSchedule {
  const seed = options.seed ?? randomSeed();
  const duration = options.duration;
  if (!(duration > 0)) throw new RangeError(`chaos: duration must be positive, got ${duration}`);
  if (!(duration <= maxTimerMs)) throw new RangeError(`chaos: duration must be at most ${maxTimerMs} ms (about 24.8 days, the longest timer), got ${duration}`);
  if (!Number.isInteger(seed)) throw new RangeError(`chaos: seed must be an integer, got ${seed}`);
  const templates = (options.faults ?? faultKinds).map((t): TemplateObject => (typeof t === 'string' ? { kind: t } : t));
  if (templates.length === 0) throw new RangeError('chaos: faults is empty');
  for (const t of templates) checkTemplate(t, '');
  if (!templates.some((t) => (t.weight ?? 1) > 0)) throw new RangeError('chaos: every fault has weight 0: none could be picked');
  const meanGap = options.meanGapMs ?? 700;
  // A gap of 0 (or less) never moved the schedule on: it looped forever; a tiny one made more faults than memory holds.
  if (!(meanGap > 0 && Number.isFinite(meanGap))) throw new RangeError(`chaos: meanGapMs must be a positive number of ms, got ${meanGap}`);
  if (duration / meanGap > maxFaults) {
    throw new RangeError(`chaos: a duration of ${duration} ms with a mean gap of ${meanGap} ms makes about ${Math.round(duration / meanGap)} faults; at most ${maxFaults}: a longer meanGapMs or a shorter duration`);
  }
  const random = new Prng(seed);
  const drawn: Omit<ScheduledFault, 'index'>[] = [];
  for (let at = random.exponential(meanGap); at < duration; at += random.exponential(meanGap)) {
    const template = random.pick(templates, (t) => t.weight ?? 1);
    const [min, max] = template.windowMs ?? defaultWindows[template.kind];
    const start = Math.round(at);
    const length = Math.min(random.int(min, max), duration - start);
    const fault = instantiate(template, random, options.scope);
    // A window cut to nothing by the end of the schedule is dropped (after its draws, so that the rest stay the same).
    if (length > 0) drawn.push({ at: start, durationMs: length, fault });
  }
  if (options.plan) drawn.push(...planned(options.plan, seed, duration, options.scope));
  // In order of start (the random faults first at equal offsets); the index salts each window's own draws.
  const entries: ScheduledFault[] = drawn
    .map((e, order) => ({ e, order }))
    .sort((a, b) => a.e.at - b.e.at || a.order - b.order)
    .map(({ e }, index) => ({ index, ...e }));
  return {
    seed,
    duration,
    entries,
    describe: () => describeSchedule(seed, duration, entries),
  };
}

type TemplateObject = Exclude<FaultTemplate, FaultKind>;

/** setTimeout's longest delay: a longer one fires at once (Node warns and makes it 1 ms). */
const maxTimerMs = 2 ** 31 - 1;
/** The most faults a schedule may draw, on average (duration / meanGapMs). */
const maxFaults = 1_000_000;

/** Refuses a template whose numbers cannot mean anything (a draw would loop, a timer fire at once, a window end before it starts). */
function checkTemplate(t: TemplateObject, where: string): void {
  const fault = `chaos: ${t.kind}${where}`;
  if (!allFaultKinds.includes(t.kind)) throw new RangeError(`chaos: unknown fault kind ${JSON.stringify(t.kind)}${where}; kinds: ${allFaultKinds.join(', ')}`);
  if (t.weight !== undefined && !(t.weight >= 0 && Number.isFinite(t.weight))) throw new RangeError(`${fault}: weight must be a number from 0, got ${t.weight}`);
  if (t.windowMs !== undefined) {
    const [min, max] = t.windowMs;
    if (!(min >= 0 && min <= max && max <= maxTimerMs)) throw new RangeError(`${fault}: windowMs must be [shortest, longest] with 0 <= shortest <= longest <= ${maxTimerMs}, got [${min}, ${max}]`);
  }
  if (t.ms !== undefined && !(t.ms >= 0 && t.ms <= maxTimerMs)) throw new RangeError(`${fault}: ms must be from 0 to ${maxTimerMs}, got ${t.ms}`);
  if (t.probability !== undefined && !(t.probability >= 0 && t.probability <= 1)) throw new RangeError(`${fault}: probability must be from 0 to 1, got ${t.probability}`);
  if (t.code !== undefined && !(errorCodes as readonly number[]).includes(t.code)) throw new RangeError(`${fault}: code must be one of ${errorCodes.join(', ')}, got ${t.code}`);
  if (t.retryAfterSeconds !== undefined && !(t.retryAfterSeconds >= 0 && Number.isInteger(t.retryAfterSeconds))) {
    throw new RangeError(`${fault}: retryAfterSeconds must be a whole number from 0, got ${t.retryAfterSeconds}`);
  }
}

/** The salt of the plan's generator (the random faults' windows use their index). */
const planSalt = -1;

/** The plan's faults, round after round, while the schedule lasts; drawn in plan order, round by round, from the plan's own generator. */
function planned(plan: ChaosPlan, seed: number, duration: number, defaultScope: FaultScope | undefined): Omit<ScheduledFault, 'index'>[] {
  if (!(plan.everyMs > 0)) throw new RangeError(`chaos: plan.everyMs must be positive, got ${plan.everyMs}`);
  if (duration / plan.everyMs > maxFaults) throw new RangeError(`chaos: plan.everyMs of ${plan.everyMs} ms repeats the plan more than ${maxFaults} times in ${duration} ms`);
  for (const p of plan.faults) {
    checkTemplate(p, ' in the plan');
    if (!(p.at >= 0 && p.at + (p.jitterMs ?? 0) < plan.everyMs)) throw new RangeError(`chaos: the plan's ${p.kind} at ${p.at} (+${p.jitterMs ?? 0}) must start within its ${plan.everyMs} ms`);
  }
  const random = new Prng(deriveSeed(seed, planSalt));
  const out: Omit<ScheduledFault, 'index'>[] = [];
  for (let round = 0; round * plan.everyMs < duration; round++) {
    for (const p of plan.faults) {
      const start = round * plan.everyMs + p.at + random.int(0, p.jitterMs ?? 0);
      const [min, max] = p.windowMs ?? defaultWindows[p.kind];
      const length = Math.min(random.int(min, max), duration - start);
      const fault = instantiate(p, random, defaultScope);
      if (length > 0) out.push({ at: start, durationMs: length, fault });
    }
  }
  return out;
}

/** Fills in what the template leaves open, always drawing in the same order so that a seed means the same faults. */
function instantiate(template: TemplateObject, random: Prng, defaultScope: FaultScope | undefined): Fault {
  const { verbs, resources, namespaces } = template.verbs || template.resources || template.namespaces ? template : (defaultScope ?? {});
  const scope: FaultScope = { ...(verbs ? { verbs } : {}), ...(resources ? { resources } : {}), ...(namespaces ? { namespaces } : {}) };
  switch (template.kind) {
    case 'latency': {
      const ms = random.int(20, 400);
      return { kind: 'latency', ms: template.ms ?? ms, ...scope };
    }
    case 'error': {
      const code = random.pick<ErrorCode>(errorCodes);
      const applied = random.chance(0.5);
      const chosen = template.code ?? code;
      // A throttled or unavailable server did nothing; a 500 or a timeout may come after the write.
      const mayApply = chosen === 500 || chosen === 504;
      return {
        kind: 'error',
        code: chosen,
        ...(chosen === 429 ? { retryAfterSeconds: template.retryAfterSeconds ?? 1 } : {}),
        applied: template.applied ?? (mayApply && applied),
        probability: template.probability ?? 0.5,
        ...scope,
      };
    }
    case 'reset': {
      const applied = random.chance(0.5);
      return { kind: 'reset', applied: template.applied ?? applied, probability: template.probability ?? 0.5, ...scope };
    }
    case 'delete-pod':
    case 'crash-container':
    case 'node-not-ready':
    case 'image-pull-failure':
      return { kind: template.kind, ...(template.labelSelector ? { labelSelector: template.labelSelector } : {}), ...scope } as Fault;
    // An operator or server fault strikes a process: no request scope applies.
    case 'kill-leader':
    case 'terminate-leader':
    case 'restart-server':
    case 'compact':
      return { kind: template.kind };
    default:
      return { kind: template.kind, ...scope };
  }
}

function describeSchedule(seed: number, duration: number, entries: readonly ScheduledFault[]): string {
  const s = (ms: number): string => `${(ms / 1000).toFixed(2)}s`;
  const lines = entries.map((e) => `  +${s(e.at).padStart(6)} for ${s(e.durationMs).padStart(6)}  ${describeFault(e.fault)}`);
  return [`chaos schedule: seed ${seed}, ${s(duration)}, ${entries.length} faults`, ...lines].join('\n');
}
