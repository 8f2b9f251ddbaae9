/**
 * The type universe the generator works on. Both sources feed it: the user's
 * TypeScript files (source/ts-reader.ts) and the Go declarations of the
 * Kubernetes API types (source/go-reader.ts), so one schema builder applies
 * controller-gen's rules to both. Declarations are keyed by id: Go's
 * `import/path.Name` for Kubernetes types, `file.ts#Name` for the user's.
 */
import type { SourcePosition } from './errors.js';
import type { MarkerSet } from './markers/registry.js';

/** Go's scalar types (TypeScript reaches them through the runtime's aliases, `number` and friends). */
export type ScalarName =
  | 'string'
  | 'bool'
  | 'int'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'uint'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'float32'
  | 'float64'
  | 'bytes'
  /** TypeScript's `number`: a JSON number, with no Go counterpart. */
  | 'number';

export type TypeExpr =
  | { kind: 'scalar'; name: ScalarName }
  | { kind: 'ref'; id: string; pos?: SourcePosition }
  | { kind: 'array'; elem: TypeExpr }
  | { kind: 'map'; elem: TypeExpr }
  | { kind: 'struct'; fields: Field[] }
  /** A union of literals (`'Allow' | 'Forbid'`): an enum of its values. */
  | { kind: 'enum'; base: 'string' | 'number' | 'bool'; values: Array<string | number | boolean> }
  /** `T | null`. */
  | { kind: 'nullable'; elem: TypeExpr }
  /** Go's `interface{}`, TypeScript's `unknown`: no schema unless markers give one. */
  | { kind: 'unknown'; pos?: SourcePosition };

export interface Field {
  /** The JSON name ('' for an inlined, embedded struct). */
  name: string;
  /** Embedded and inlined (Go's `json:",inline"`, TypeScript's `extends`). */
  inline: boolean;
  /** Optional by syntax: TypeScript's `?`, Go's `omitempty` / `omitzero`. */
  optionalBySyntax: boolean;
  doc: string[];
  markers: MarkerSet;
  type: TypeExpr;
  pos: SourcePosition;
}

export interface PackageInfo {
  /** The directory (TypeScript) or import path (Go). */
  id: string;
  markers: MarkerSet;
}

export interface Declaration {
  id: string;
  name: string;
  pkg: PackageInfo;
  doc: string[];
  markers: MarkerSet;
  type: TypeExpr;
  pos: SourcePosition;
  /** Declared in the user's sources (kinds come only from these). */
  local: boolean;
}

/** All declarations by id, with their packages. */
export class Universe {
  readonly decls = new Map<string, Declaration>();
  readonly packages = new Map<string, PackageInfo>();

  add(decl: Declaration): void {
    this.decls.set(decl.id, decl);
  }

  get(id: string): Declaration | undefined {
    return this.decls.get(id);
  }
}
