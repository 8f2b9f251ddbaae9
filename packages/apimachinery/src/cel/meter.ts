/**
 * Runtime cost tracking. cel-go charges roughly one unit per evaluated expression
 * node plus size-proportional amounts for string and list work; cel-js has no cost
 * hooks, so each environment's evaluator is instrumented to count evaluated nodes,
 * and library functions charge their size-proportional part. Evaluation is
 * synchronous, so one active meter at a time is enough.
 */

/** Thrown out of an evaluation that went over its per-call limit. */
export class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

/** Counts the cost of one evaluation against a limit. */
export class CostMeter {
  used = 0;
  constructor(readonly limit: number) {}

  /** Adds `n` units; throws `CostLimitExceeded` once over the limit. */
  charge(n: number): void {
    this.used += n;
    if (this.used > this.limit) throw new CostLimitExceeded();
  }

  /** Whether the limit was exceeded. */
  get exceeded(): boolean {
    return this.used > this.limit;
  }
}

let active: CostMeter | undefined;

/** Runs `fn` with `meter` receiving the charges of CEL evaluation. */
export function withMeter<T>(meter: CostMeter, fn: () => T): T {
  const previous = active;
  active = meter;
  try {
    return fn();
  } finally {
    active = previous;
  }
}

/** Charges the active meter (no-op outside an evaluation). */
export function chargeCost(n: number): void {
  if (active !== undefined && n > 0) active.charge(n);
}

/** Charges `ceil(size * factor)`, cel-go's way of costing traversals (factor 0.1 for strings). */
export function chargeTraversal(size: number, factor = 0.1): void {
  chargeCost(Math.ceil(size * factor));
}

interface EvaluatorLike {
  run(ast: unknown, ctx: unknown): unknown;
}

interface AstLike {
  evaluate(ev: unknown, ast: unknown, ctx: unknown): unknown;
}

const instrumented = new WeakSet<object>();

/**
 * Makes a cel-js evaluator charge one unit per evaluated node. The evaluator is the
 * `this` of any registered function handler; see `probeEvaluator` in libraries.ts.
 */
export function instrumentEvaluator(ev: EvaluatorLike): void {
  if (instrumented.has(ev)) return;
  instrumented.add(ev);
  ev.run = function run(this: EvaluatorLike, ast: unknown, ctx: unknown): unknown {
    const m = active;
    if (m !== undefined && ++m.used > m.limit) throw new CostLimitExceeded();
    return (ast as AstLike).evaluate(this, ast, ctx);
  };
}
