/**
 * The types a user's API file may import from outside its project, and the Go
 * types they stand for: Operant's Go-named aliases (`int32`, `Time`, `Quantity`,
 * `ObjectMeta`, ...), and every type of `kubernetes-types`, whose modules mirror
 * the Go packages of k8s.io/api and k8s.io/apimachinery.
 */
import type { ScalarName, TypeExpr } from '../model.js';

export const META_V1 = 'k8s.io/apimachinery/pkg/apis/meta/v1';
export const RESOURCE = 'k8s.io/apimachinery/pkg/api/resource';
export const INTSTR = 'k8s.io/apimachinery/pkg/util/intstr';
export const RUNTIME = 'k8s.io/apimachinery/pkg/runtime';
export const APIEXTENSIONS_V1 = 'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1';

const OPERANT_MODULES = new Set(['@operant/runtime', '@operant/apimachinery']);

const scalarAliases: Record<string, ScalarName> = {
  int: 'int',
  int32: 'int32',
  int64: 'int64',
  float32: 'float32',
  float64: 'float64',
  Bytes: 'bytes',
};

/** Go types by the name Operant exports them under. */
const goTypeAliases: Record<string, string> = {
  Time: `${META_V1}.Time`,
  MicroTime: `${META_V1}.MicroTime`,
  Duration: `${META_V1}.Duration`,
  ObjectMeta: `${META_V1}.ObjectMeta`,
  TypeMeta: `${META_V1}.TypeMeta`,
  ListMeta: `${META_V1}.ListMeta`,
  Condition: `${META_V1}.Condition`,
  OwnerReference: `${META_V1}.OwnerReference`,
  Quantity: `${RESOURCE}.Quantity`,
  IntOrString: `${INTSTR}.IntOrString`,
  RawExtension: `${RUNTIME}.RawExtension`,
  JSON: `${APIEXTENSIONS_V1}.JSON`,
};

/** The Go type behind a name imported from an Operant package, if it has one. */
export function goTypeOfOperantAlias(module: string, name: string): TypeExpr | undefined {
  if (!OPERANT_MODULES.has(module)) return undefined;
  const scalar = scalarAliases[name];
  if (scalar) return { kind: 'scalar', name: scalar };
  const id = goTypeAliases[name];
  return id ? { kind: 'ref', id } : undefined;
}

/**
 * The Go package of a `kubernetes-types` module: `kubernetes-types/batch/v1.js`
 * is k8s.io/api/batch/v1; meta/v1, api/resource, util/intstr and runtime live in
 * k8s.io/apimachinery.
 */
export function goPackageOfKubernetesTypes(module: string): string | undefined {
  const m = /^kubernetes-types\/(.+?)(?:\.js|\.d\.ts)?$/.exec(module);
  if (!m) return undefined;
  const path = m[1];
  if (path === 'meta/v1') return META_V1;
  if (path === 'api/resource') return RESOURCE;
  if (path === 'util/intstr') return INTSTR;
  if (path === 'runtime') return RUNTIME;
  if (path.startsWith('apiextensions/')) return `k8s.io/apiextensions-apiserver/pkg/apis/${path}`;
  return `k8s.io/api/${path}`;
}
