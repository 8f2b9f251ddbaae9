/**
 * Field paths built the way kube's field.Path prints them, so error paths read the
 * same as a real cluster's: `spec.items[0]`, `spec.labels[app]`, `properties[spec]`.
 */

/** field.Path Child: `parent.name`, or `name` at the root. */
export function childPath(parent: string, name: string): string {
  return parent ? `${parent}.${name}` : name;
}

/** field.Path Key: `parent[key]`, the key unquoted. */
export function keyPath(parent: string, key: string): string {
  return `${parent}[${key}]`;
}

/** field.Path Index: `parent[i]`. */
export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
