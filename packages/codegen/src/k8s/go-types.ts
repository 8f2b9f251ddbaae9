/**
 * The Go type declarations of k8s.io/api and k8s.io/apimachinery, as facts read
 * from their Go sources (field order, json tags, doc comments with their
 * `+marker` lines). controller-gen reads these from Go; we read them from
 * `go-types.json`, written by `scripts/extract-go-types.ts` (see there for how
 * to regenerate it). Nothing here interprets markers: that is the generator's job.
 */
import { readFileSync } from 'node:fs';

/** Everything extracted: import path -> type name -> declaration. */
export interface GoTypeIndex {
  /** The git refs (tags) the sources were read at, e.g. "v0.36.0". */
  source: { api: string; apimachinery: string };
  /** Import path (e.g. "k8s.io/api/core/v1") -> type name -> declaration; keys sorted. */
  packages: Record<string, Record<string, GoTypeDecl>>;
}

/** One `type Name ...` declaration. */
export interface GoTypeDecl {
  /**
   * The doc comment lines: text after `//` (or inside `/* *\/`), one leading
   * space removed, marker lines (`+...`) included, in source order.
   */
  doc: string[];
  /**
   * Marker lines (starting with `+`) of the closest comment group before the
   * declaration that is not its doc comment, i.e. one separated from the
   * declaration (or its doc) by a blank line; controller-gen reads markers there too.
   */
  extraMarkers: string[];
  type: GoTypeExpr;
}

/** A Go type expression. `named` refs point at declarations in {@link GoTypeIndex.packages}, except standard library (and gopkg.in/inf.v0) ones. */
export type GoTypeExpr =
  | { kind: 'struct'; fields: GoField[] }
  /** Predeclared type, spelled as in the source: string, bool, int32, int64, float64, byte, uint8, error, ... */
  | { kind: 'basic'; name: string }
  /** A declared type; `pkg` is the full import path, e.g. "k8s.io/api/core/v1" or "time". */
  | { kind: 'named'; pkg: string; name: string }
  | { kind: 'pointer'; elem: GoTypeExpr }
  | { kind: 'slice'; elem: GoTypeExpr }
  | { kind: 'array'; len: number; elem: GoTypeExpr }
  | { kind: 'map'; key: GoTypeExpr; elem: GoTypeExpr }
  /** Interface types; also func and chan types and generic type parameters (none occur in API types). */
  | { kind: 'interface' };

/** A struct field, in Go source order. */
export interface GoField {
  /** Go field name; for an embedded field, the embedded type's name. */
  name: string;
  embedded: boolean;
  /** The raw json struct tag value ("name,omitempty", ",inline", "-"), or "" when there is no json tag. */
  tag: string;
  /** As {@link GoTypeDecl.doc}. */
  doc: string[];
  type: GoTypeExpr;
}

let cached: GoTypeIndex | undefined;

/**
 * Reads (once) and returns the committed index. tsc does not copy the .json
 * into dist/, so when running compiled (dist/k8s/go-types.js) the file next to
 * this module is missing and we read it from ../../src/k8s/ instead.
 */
export function loadGoTypes(): GoTypeIndex {
  if (!cached) {
    let text: string;
    try {
      text = readFileSync(new URL('./go-types.json', import.meta.url), 'utf8');
    } catch {
      text = readFileSync(new URL('../../src/k8s/go-types.json', import.meta.url), 'utf8');
    }
    cached = JSON.parse(text) as GoTypeIndex;
  }
  return cached;
}
