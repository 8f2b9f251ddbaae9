/**
 * The cost of a CRD's schema checks. Over HTTPS, against one `operant server`
 * serving two CRDs of the same kind: creates per second and latency of a custom
 * resource whose CRD has a realistic schema and 5 CEL rules, against the same
 * resource under a CRD without checks. In process, the time per object of the
 * validation path a create runs (prune, default, validate, CEL) with the
 * apimachinery functions the server uses, step by step.
 */
import { applyDefaults, pruneNonNullableNullsWithoutDefaults, pruneValue, validateValue } from '@operant/apimachinery/schema';
import { compileSchemaRules, evaluateRules, type CompiledRules } from '@operant/apimachinery/cel';
import { deepCopy, type OpenApiSchema } from '@operant/apimachinery';
import { Client, closedLoop } from './client.js';
import { application, applicationCrd, checkedSchema, crdGroups, uncheckedSchema } from './crd-fixtures.js';

export type CrdSide = keyof typeof crdGroups;

/** One timed round of creates. */
export interface CreateRound {
  perSecond: number;
  /** Latency of a create, in milliseconds. */
  p50: number;
  p99: number;
}

const collection = (group: string): string => `/apis/${group}/v1/namespaces/default/applications`;

/** Percentile of sorted numbers (nearest rank). */
const at = (sorted: Float64Array, p: number): number => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];

async function createRound(client: Client, side: CrdSide, tag: string, concurrency: number, durationMs: number): Promise<CreateRound> {
  const group = crdGroups[side];
  const path = collection(group);
  const latencies: number[] = [];
  const r = await closedLoop(concurrency, { durationMs }, async (w, i) => {
    const body = JSON.stringify(application(group, `${tag}-${w}-${i}`, i));
    const started = performance.now();
    await client.ok('POST', path, body);
    latencies.push(performance.now() - started);
  });
  const sorted = Float64Array.from(latencies).sort();
  return { perSecond: r.perSecond, p50: at(sorted, 0.5), p99: at(sorted, 0.99) };
}

/**
 * Creates both CRDs, then checks that they behave as intended: the checked one
 * defaults and refuses a CEL violation with its messageExpression, the
 * unchecked one stores what it is given.
 */
export async function installCrds(client: Client): Promise<void> {
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  await client.ok('POST', crds, applicationCrd(crdGroups.checked, checkedSchema));
  await client.ok('POST', crds, applicationCrd(crdGroups.unchecked, uncheckedSchema));

  const probe = async (side: CrdSide, mutate: (o: Record<string, any>) => void = () => {}): Promise<{ status: number; body: any }> => {
    const obj = application(crdGroups[side], `probe-${side}`, 0);
    mutate(obj);
    const r = await client.send('POST', `${collection(crdGroups[side])}?dryRun=All`, JSON.stringify(obj));
    return { status: r.status, body: JSON.parse(r.body.toString('utf8')) };
  };
  const created = await probe('checked');
  if (created.status !== 201 || created.body.spec?.rollout?.progressDeadlineSeconds !== 600) {
    throw new Error(`checked CRD: create of a valid Application: ${created.status} ${JSON.stringify(created.body).slice(0, 500)}`);
  }
  const plain = await probe('unchecked');
  if (plain.status !== 201 || plain.body.spec?.rollout?.progressDeadlineSeconds !== undefined) {
    throw new Error(`unchecked CRD: create of an Application: ${plain.status} ${JSON.stringify(plain.body).slice(0, 500)}`);
  }
  const tooMany = (o: Record<string, any>): void => {
    o.spec.replicas = 50;
  };
  const refused = await probe('checked', tooMany);
  const message = JSON.stringify(refused.body);
  if (refused.status !== 422 || !message.includes('replicas 50 must lie between minReplicas 2 and maxReplicas 12')) {
    throw new Error(`checked CRD: a CEL violation was not refused as expected: ${refused.status} ${message.slice(0, 500)}`);
  }
  if ((await probe('unchecked', tooMany)).status !== 201) throw new Error('unchecked CRD refused an Application');
}

/**
 * Creates/s and latency for both CRDs: a 1 s warm-up each, then `rounds`
 * rounds of `durationMs` per CRD, alternating which goes first.
 */
export async function crdCreates(client: Client, opts: { rounds: number; concurrency: number; durationMs: number }): Promise<Record<CrdSide, CreateRound[]>> {
  const result: Record<CrdSide, CreateRound[]> = { checked: [], unchecked: [] };
  const sides: CrdSide[] = ['unchecked', 'checked'];
  // Warm-up: TLS handshakes, JIT, the first objects. 300 ms (as the creates section) left the
  // first measured round ~20% slow, whichever CRD it was for: a second each instead.
  for (const side of sides) await createRound(client, side, 'warm', opts.concurrency, 1000);
  for (let round = 0; round < opts.rounds; round++) {
    const order = round % 2 ? [...sides].reverse() : sides;
    for (const side of order) result[side].push(await createRound(client, side, `r${round}`, opts.concurrency, opts.durationMs));
  }
  return result;
}

/** Microseconds per object of each step of a create's validation path. */
export interface PathTimes {
  prune: number;
  defaults: number;
  validate: number;
  cel: number;
  /** prune + defaults + validate + cel. */
  total: number;
  /**
   * Not part of validation: the defaulting of the object the server sends back
   * (a deep copy, then applyDefaults, as the server does on every read when the
   * schema has defaults: noneConversion in custom-resources.ts); 0 without defaults.
   */
  readDefaults: number;
}

/** Whether a schema declares a default anywhere (the server's hasDefaults). */
function hasDefaults(s: OpenApiSchema): boolean {
  if (s.default !== undefined) return true;
  return [...Object.values(s.properties ?? {}), ...(s.items ? [s.items] : []), ...(typeof s.additionalProperties === 'object' ? [s.additionalProperties] : [])].some(hasDefaults);
}

/** The steps a create runs, as packages/apiserver/src/crd/custom-resources.ts runs them. */
function timePath(schema: OpenApiSchema, rules: CompiledRules, objects: Array<Record<string, unknown>>): PathTimes & { errors: number } {
  let errors = 0;
  const t0 = performance.now();
  for (const o of objects) errors += pruneValue(o, schema, { isResourceRoot: true }).length;
  const t1 = performance.now();
  for (const o of objects) {
    pruneNonNullableNullsWithoutDefaults(o, schema);
    applyDefaults(o, schema);
  }
  const t2 = performance.now();
  for (const o of objects) errors += validateValue(o, schema, '', { isResourceRoot: true }).length;
  const t3 = performance.now();
  if (!rules.empty) for (const o of objects) errors += evaluateRules(rules, o, undefined, '').length;
  const t4 = performance.now();
  if (hasDefaults(schema)) for (const o of objects) applyDefaults(deepCopy(o), schema);
  const t5 = performance.now();
  const us = (ms: number): number => (ms * 1000) / objects.length;
  return { prune: us(t1 - t0), defaults: us(t2 - t1), validate: us(t3 - t2), cel: us(t4 - t3), total: us(t4 - t0), readDefaults: us(t5 - t4), errors };
}

/**
 * Times the validation path in process for both schemas: `repeats` batches of
 * `batch` freshly parsed objects each (parsing is not timed), after a warm-up
 * batch. Also times the CEL rules on an update (the transition rule runs then)
 * and the one-off compilation of the checked schema's rules.
 */
export function validationPath(opts: { repeats: number; batch: number }): {
  checked: PathTimes[];
  unchecked: PathTimes[];
  celOnUpdate: number[];
  compileMs: number;
} {
  const compileStart = performance.now();
  const compiled = compileSchemaRules(checkedSchema, 'spec.versions[0].schema.openAPIV3Schema');
  const compileMs = performance.now() - compileStart;
  if (compiled.errors.length) throw new Error(`the checked schema's rules do not compile: ${JSON.stringify(compiled.errors)}`);
  const schemas: Record<CrdSide, { schema: OpenApiSchema; rules: CompiledRules; body: string }> = {
    checked: { schema: checkedSchema, rules: compiled.rules, body: JSON.stringify(application(crdGroups.checked, 'inproc', 7)) },
    unchecked: { schema: uncheckedSchema, rules: compileSchemaRules(uncheckedSchema, '').rules, body: JSON.stringify(application(crdGroups.unchecked, 'inproc', 7)) },
  };
  const fresh = (body: string): Array<Record<string, unknown>> => Array.from({ length: opts.batch }, () => JSON.parse(body) as Record<string, unknown>);
  const out = { checked: [] as PathTimes[], unchecked: [] as PathTimes[], celOnUpdate: [] as number[], compileMs };
  // An update that changes the spec but keeps the owner: every rule runs, the transition rule too.
  const old = fresh(schemas.checked.body)[0];
  timePath(checkedSchema, compiled.rules, [old]);
  for (let r = -1; r < opts.repeats; r++) {
    for (const side of ['unchecked', 'checked'] as const) {
      const { schema, rules, body } = schemas[side];
      const { errors, ...times } = timePath(schema, rules, fresh(body));
      if (errors) throw new Error(`${side}: the benchmark object has ${errors} pruned fields or errors in process`);
      if (r >= 0) out[side].push(times);
    }
    const updated = fresh(schemas.checked.body);
    for (const o of updated) {
      pruneValue(o, checkedSchema, { isResourceRoot: true });
      applyDefaults(o, checkedSchema);
      (o.spec as { replicas: number }).replicas = 4;
    }
    let errors = 0;
    const t0 = performance.now();
    for (const o of updated) errors += evaluateRules(compiled.rules, o, old, '').length;
    const us = ((performance.now() - t0) * 1000) / updated.length;
    if (errors) throw new Error(`the update has ${errors} CEL errors in process`);
    if (r >= 0) out.celOnUpdate.push(us);
  }
  return out;
}
