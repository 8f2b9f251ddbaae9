/**
 * Type aliases named after Go's types, for API types written in TypeScript.
 * TypeScript has one `number`; the code generator (`operant generate`) reads
 * these names to write what controller-gen writes for the Go type: `int32` is
 * an integer with format int32, `Time` a date-time string, `Quantity` an
 * int-or-string with kube's quantity pattern. At run time they are plain JSON
 * values.
 *
 * @example
 * ```ts
 * import type { int32, Quantity, Time } from '@operant/runtime';
 *
 * export interface WorkerSpec {
 *   // +kubebuilder:validation:Minimum=1
 *   replicas?: int32;
 *   memory?: Quantity;
 *   lastRun?: Time;
 * }
 * ```
 */

/** Go's `int`: an integer, with no format. */
export type int = number;
/** Go's `int32`: an integer with format int32. */
export type int32 = number;
/** Go's `int64`: an integer with format int64. */
export type int64 = number;
/** Go's `float32`: a number with format float. */
export type float32 = number;
/** Go's `float64`: a number with format double. */
export type float64 = number;
/** Go's `[]byte`: a base64 string (format byte). */
export type Bytes = string;
/** metav1.Time: an RFC 3339 date-time string. */
export type Time = string;
/** metav1.MicroTime: an RFC 3339 date-time string with microseconds. */
export type MicroTime = string;
/** metav1.Duration: a Go duration string such as `1m30s`. */
export type Duration = string;
/** resource.Quantity: `500m`, `1Gi`, or a number. */
export type Quantity = string | number;
/** intstr.IntOrString: a port number or name, a count or a percentage. */
export type IntOrString = string | number;
/** runtime.RawExtension: an embedded object of any kind. */
export type RawExtension = Record<string, unknown>;
/** apiextensions JSON: any JSON value, kept as it is. */
export type JSON = unknown;

/** metav1.ListMeta: a list's metadata (resourceVersion, continue). */
export type { ListMeta } from 'kubernetes-types/meta/v1.js';
/** metav1.TypeMeta: an object's apiVersion and kind (Go embeds it; `extends TypeMeta` does the same). */
export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}
