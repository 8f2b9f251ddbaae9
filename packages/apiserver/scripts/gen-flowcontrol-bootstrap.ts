/**
 * Generates `src/registry/flowcontrol-bootstrap.json`: the FlowSchemas and
 * PriorityLevelConfigurations every kube-apiserver creates at start, the
 * mandatory ones (exempt, catch-all) and the suggested ones (system,
 * node-high, leader-election, workload-high, workload-low, global-default
 * and their FlowSchemas), as k8s.io/apiserver's
 * pkg/apis/flowcontrol/bootstrap/default.go declares them.
 *
 * That file is Go: package-level variables built from composite literals,
 * constants of other packages, `ptr.To`, `append` and seven small helper
 * functions (newFlowSchema, groups, users, ...). This script evaluates those
 * declarations: the helpers are mirrored below (each a few lines of Go); every
 * value (names, precedences, shares, queues, subjects, rules) and every
 * constant is read from the sources, and JSON field names and omitempty come
 * from the struct tags of k8s.io/api's flowcontrol/v1 types.
 *
 * The sources are read from bare git mirrors with `git show <ref>:<path>`:
 *
 *   node --import tsx packages/apiserver/scripts/gen-flowcontrol-bootstrap.ts \
 *     [--apiserver /work/.mirror/kubernetes+apiserver/repo] [--api /work/.mirror/kubernetes+api/repo] \
 *     [--apimachinery /work/.mirror/kubernetes+apimachinery/repo] [--ref v0.32.1]
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    apiserver: { type: 'string', default: '/work/.mirror/kubernetes+apiserver/repo' },
    api: { type: 'string', default: '/work/.mirror/kubernetes+api/repo' },
    apimachinery: { type: 'string', default: '/work/.mirror/kubernetes+apimachinery/repo' },
    ref: { type: 'string', default: 'v0.32.1' },
  },
});
const ref = values.ref!;
const show = (mirror: string, path: string): string => execFileSync('git', ['--git-dir', mirror, 'show', `${ref}:${path}`], { encoding: 'utf8' });

// ---------------------------------------------------------------------------
// Constants: `pkg.Name` -> value, from the `Name [Type] = "value"` lines of each package's sources.

const constants = new Map<string, string>();
function readConstants(alias: string, source: string): void {
  for (const m of source.matchAll(/^\s*(?:const\s+)?([A-Z]\w*)\s+(?:\w+\s+)?=\s+"([^"]*)"/gm)) constants.set(`${alias}.${m[1]}`, m[2]);
}
readConstants('flowcontrol', show(values.api!, 'flowcontrol/v1/types.go'));
readConstants('coordinationv1', show(values.api!, 'coordination/v1/register.go'));
readConstants('corev1', show(values.api!, 'core/v1/register.go'));
readConstants('user', show(values.apiserver!, 'pkg/authentication/user/user.go'));
readConstants('serviceaccount', show(values.apiserver!, 'pkg/authentication/serviceaccount/util.go'));
readConstants('metav1', show(values.apimachinery!, 'pkg/apis/meta/v1/types.go'));
function constant(name: string): string {
  const v = constants.get(name);
  if (v === undefined) throw new Error(`unknown constant ${name}`);
  return v;
}

// ---------------------------------------------------------------------------
// JSON names and omitempty of the flowcontrol/v1 (and ObjectMeta) fields, from their struct tags.

/** Per Go field name (the literals do not say which struct they build): its JSON name and whether omitempty applies, `varies` when structs differ. */
const tags = new Map<string, { json: string; omitempty: boolean | 'varies' }>();
const objectMeta = /^type ObjectMeta struct \{[\s\S]*?^\}/m.exec(show(values.apimachinery!, 'pkg/apis/meta/v1/types.go'))![0];
for (const source of [show(values.api!, 'flowcontrol/v1/types.go'), objectMeta]) {
  // `Name Type \`json:...\``, or an embedded `pkg.Type \`json:...\`` named after its type.
  for (const m of source.matchAll(/^\s+(?:([A-Z]\w*)\s+)?([^\s`]+)\s+`json:"([^",]*)((?:,\w+)*)"/gm)) {
    const field = m[1] ?? m[2].split('.').pop()!;
    const tag = { json: m[3], omitempty: m[4].includes('omitempty') };
    const seen = tags.get(field);
    if (seen && seen.json !== tag.json) throw new Error(`field ${field} has two JSON names`);
    tags.set(field, seen && seen.omitempty !== tag.omitempty ? { json: tag.json, omitempty: 'varies' } : tag);
  }
}

type GoValue = string | number | boolean | null | GoValue[] | { [field: string]: GoValue };

/** A pointer's target (`ptr.To(x)`): never empty to omitempty, whatever it points to. */
const pointer = (v: GoValue): GoValue => ({ __ptr: v });
const isPointer = (v: GoValue): v is { __ptr: GoValue } => v !== null && typeof v === 'object' && !Array.isArray(v) && '__ptr' in v;
const isZero = (v: GoValue): boolean => !isPointer(v) && (v === '' || v === 0 || v === false || v === null || (Array.isArray(v) && v.length === 0));

/** A Go-shaped value (struct fields by Go name) as encoding/json writes it. */
function toJson(v: GoValue): GoValue {
  if (Array.isArray(v)) return v.map(toJson);
  if (v === null || typeof v !== 'object') return v;
  // A Go map (annotations): its keys are data, not fields.
  if ('__map' in v) return v.__map;
  if (isPointer(v)) return toJson(v.__ptr);
  const out: Record<string, GoValue> = {};
  for (const [field, value] of Object.entries(v)) {
    const tag = tags.get(field);
    if (!tag) throw new Error(`no json tag for field ${field}`);
    if (tag.omitempty === 'varies' && isZero(value)) throw new Error(`${field}: a zero value whose omitempty depends on its struct`);
    if (tag.omitempty && isZero(value)) continue;
    out[tag.json] = toJson(value);
  }
  return out;
}

// ---------------------------------------------------------------------------
// The helpers of default.go, mirrored.

const autoUpdate = (): GoValue => ({ [constant('flowcontrol.AutoUpdateAnnotationKey')]: 'true' });
/** Annotations are a Go map, marked so that toJson leaves their keys alone. */
const meta = (name: string): GoValue => ({ Name: name, Annotations: { __map: autoUpdate() } });

const helpers: Record<string, (...args: GoValue[]) => GoValue> = {
  newPriorityLevelConfiguration: (name, spec) => ({ ObjectMeta: meta(name as string), Spec: spec }),
  newFlowSchema: (name, plName, matchingPrecedence, dmType, ...rules) => ({
    ObjectMeta: meta(name as string),
    Spec: {
      PriorityLevelConfiguration: { Name: plName },
      MatchingPrecedence: matchingPrecedence,
      DistinguisherMethod: dmType === '' ? null : { Type: dmType },
      Rules: rules,
    },
  }),
  groups: (...names) => names.map((name) => ({ Kind: constant('flowcontrol.SubjectKindGroup'), Group: { Name: name } })),
  users: (...names) => names.map((name) => ({ Kind: constant('flowcontrol.SubjectKindUser'), User: { Name: name } })),
  kubeSystemServiceAccount: (...names) =>
    names.map((name) => ({ Kind: constant('flowcontrol.SubjectKindServiceAccount'), ServiceAccount: { Name: name, Namespace: constant('metav1.NamespaceSystem') } })),
  resourceRule: (verbs, groups, resources, namespaces, clusterScoped) => ({ Verbs: verbs, APIGroups: groups, Resources: resources, Namespaces: namespaces, ClusterScope: clusterScoped }),
  nonResourceRule: (verbs, urls) => ({ Verbs: verbs, NonResourceURLs: urls }),
  'ptr.To': pointer,
  int32: (v) => v,
  append: (first, ...rest) => [...(first as GoValue[]), ...rest.flatMap((r) => (Array.isArray(r) ? r : [r]))],
};

// ---------------------------------------------------------------------------
// A tokenizer and evaluator for the var declarations of default.go.

const source = show(values.apiserver!, 'pkg/apis/flowcontrol/bootstrap/default.go');
const tokens: string[] = [];
for (const m of source.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:[^"\\]|\\.)*"|\.\.\.|[A-Za-z_]\w*|\d+|[{}()[\],:.=&*]|\s+/g)) {
  if (!/^(\s|\/\/|\/\*)/.test(m[0])) tokens.push(m[0]);
}

/** The token positions of each package-level `Name = expr` in `var` declarations. */
const declarations = new Map<string, number>();
for (let i = 0; i < tokens.length; i++) {
  if (tokens[i] !== 'var') continue;
  let depth = 0;
  let j = i + 1;
  if (tokens[j] === '(') j++;
  for (; j < tokens.length; j++) {
    const t = tokens[j];
    if (depth === 0 && t === ')') break;
    if (depth === 0 && /^[A-Z]\w*$/.test(t) && tokens[j + 1] === '=') declarations.set(t, j + 2);
    if ('({['.includes(t)) depth++;
    if (')}]'.includes(t)) depth--;
    if (depth < 0) break;
  }
}

const evaluated = new Map<string, GoValue>();
function variable(name: string): GoValue {
  if (!evaluated.has(name)) {
    const at = declarations.get(name);
    if (at === undefined) throw new Error(`unknown variable ${name}`);
    evaluated.set(name, new Evaluator(at).expression());
  }
  return evaluated.get(name)!;
}

class Evaluator {
  constructor(private pos: number) {}

  private peek(): string {
    return tokens[this.pos];
  }

  private take(expected?: string): string {
    const t = tokens[this.pos++];
    if (expected !== undefined && t !== expected) throw new Error(`expected ${expected}, found ${t} at token ${this.pos - 1}`);
    return t;
  }

  /** A type name (`flowcontrol.X`, `[]string`, `[]*flowcontrol.X`, `map[string]string`), skipped. */
  private skipType(): void {
    if (this.peek() === '[') {
      this.take('[');
      this.take(']');
      return this.skipType();
    }
    if (this.peek() === '*') this.take('*');
    if (this.peek() === 'map') {
      this.take('map');
      this.take('[');
      this.skipType();
      this.take(']');
      return this.skipType();
    }
    this.take();
    if (this.peek() === '.') {
      this.take('.');
      this.take();
    }
  }

  expression(): GoValue {
    const t = this.peek();
    if (t.startsWith('"')) return JSON.parse(this.take()) as string;
    if (/^\d+$/.test(t)) return Number(this.take());
    if (t === 'true' || t === 'false') return this.take() === 'true';
    if (t === '&') {
      this.take();
      return this.expression();
    }
    if (t === '[' || t === 'map') {
      this.skipType();
      return this.composite();
    }
    let name = this.take();
    if (this.peek() === '.') {
      this.take('.');
      name = `${name}.${this.take()}`;
    }
    if (this.peek() === '(') return this.call(name);
    if (this.peek() === '{') return this.composite();
    if (name.includes('.')) return constant(name);
    return variable(name);
  }

  private call(name: string): GoValue {
    const helper = helpers[name];
    if (!helper) throw new Error(`no mirror of ${name}`);
    this.take('(');
    const args: GoValue[] = [];
    while (this.peek() !== ')') {
      args.push(this.expression());
      if (this.peek() === '...') this.take('...');
      if (this.peek() === ',') this.take(',');
    }
    this.take(')');
    return helper(...args);
  }

  /** `{...}` after its type: keyed elements make a struct, positional ones a slice. */
  private composite(): GoValue {
    this.take('{');
    const items: GoValue[] = [];
    const fields: Record<string, GoValue> = {};
    while (this.peek() !== '}') {
      if (/^[A-Z]\w*$/.test(this.peek()) && tokens[this.pos + 1] === ':') {
        const field = this.take();
        this.take(':');
        fields[field] = this.expression();
      } else {
        items.push(this.expression());
      }
      if (this.peek() === ',') this.take(',');
    }
    this.take('}');
    return Object.keys(fields).length > 0 ? fields : items;
  }
}

// ---------------------------------------------------------------------------
// Output.

const wire = (kind: string, list: string): unknown[] =>
  (variable(list) as GoValue[]).map((o) => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind, ...(toJson(o) as object) }));

const out = {
  source: { 'k8s.io/apiserver': ref, file: 'pkg/apis/flowcontrol/bootstrap/default.go' },
  mandatory: {
    priorityLevelConfigurations: wire('PriorityLevelConfiguration', 'MandatoryPriorityLevelConfigurations'),
    flowSchemas: wire('FlowSchema', 'MandatoryFlowSchemas'),
  },
  suggested: {
    priorityLevelConfigurations: wire('PriorityLevelConfiguration', 'SuggestedPriorityLevelConfigurations'),
    flowSchemas: wire('FlowSchema', 'SuggestedFlowSchemas'),
  },
};
const outFile = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'registry', 'flowcontrol-bootstrap.json');
writeFileSync(outFile, `${JSON.stringify(out, null, 1)}\n`);
const count = (g: { priorityLevelConfigurations: unknown[]; flowSchemas: unknown[] }): string => `${g.priorityLevelConfigurations.length} priority levels, ${g.flowSchemas.length} flow schemas`;
console.log(`wrote ${outFile}: mandatory ${count(out.mandatory)}; suggested ${count(out.suggested)}`);
