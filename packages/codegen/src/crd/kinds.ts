/**
 * The kinds of a project: exported interfaces marked +kubebuilder:object:root
 * (list types excluded), with the group and version of their package:
 * `+groupName` from the package's files (groupversion-info.ts), and
 * `+versionName` or else the directory's name.
 */
import { basename } from 'node:path';
import { errorAt } from '../errors.js';
import type { Declaration, Universe } from '../model.js';

export interface KindInfo {
  decl: Declaration;
  group: string;
  version: string;
  kind: string;
}

const VERSION = /^v\d+(?:(?:alpha|beta)\d+)?$/;

/** Whether a root type is a list (`FooList` with `items`), which gets no CRD of its own. */
function isList(decl: Declaration): boolean {
  return decl.name.endsWith('List') && decl.type.kind === 'struct' && decl.type.fields.some((f) => f.name === 'items');
}

export function kindsOf(universe: Universe): KindInfo[] {
  const out: KindInfo[] = [];
  for (const decl of universe.decls.values()) {
    if (!decl.local || decl.markers.get('kubebuilder:object:root') !== true || isList(decl)) continue;
    const group = decl.pkg.markers.get('groupName');
    if (typeof group !== 'string' || group === '') {
      throw errorAt(decl.pos, `kind ${decl.name} has no API group: add a groupversion-info.ts beside it with a comment line // +groupName=example.com`);
    }
    if (decl.pkg.markers.has('kubebuilder:skip')) continue;
    const versionName = decl.pkg.markers.get('versionName');
    const version = typeof versionName === 'string' ? versionName : basename(decl.pkg.id);
    if (!VERSION.test(version)) {
      throw errorAt(decl.pos, `kind ${decl.name}: ${JSON.stringify(version)} is not an API version (v1, v1alpha1, v2beta3): put the types in a directory named after the version, or add // +versionName=v1`);
    }
    out.push({ decl, group, version, kind: decl.name });
  }
  return out;
}
