/**
 * Brings the Go declarations of the Kubernetes API types (extracted from
 * k8s.io/api and k8s.io/apimachinery into k8s/go-types.json) into the
 * universe, on first use of each, so that a user's field of type
 * `JobTemplateSpec` is written out in full with the Go sources' descriptions and
 * markers, as controller-gen writes it. Markers of other Go generators are
 * skipped, as controller-gen skips them.
 */
import { loadGoTypes, type GoField, type GoTypeExpr } from '../k8s/go-types.js';
import type { MarkerRegistry } from '../markers/registry.js';
import type { RawMarker } from '../markers/definition.js';
import type { Declaration, Field, PackageInfo, ScalarName, TypeExpr } from '../model.js';

const GO_SOURCE = 'k8s.io';

function goMarkers(lines: readonly string[], where: string): RawMarker[] {
  return lines.filter((l) => l.trimStart().startsWith('+')).map((l) => ({ text: l.trim(), file: where, line: 0, col: 0 }));
}

const basicScalars: Record<string, ScalarName> = {
  string: 'string',
  bool: 'bool',
  int: 'int',
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  rune: 'int32',
  int64: 'int64',
  uint: 'uint',
  uint8: 'uint8',
  byte: 'uint8',
  uint16: 'uint16',
  uint32: 'uint32',
  uint64: 'uint64',
  float32: 'float32',
  float64: 'float64',
};

/** Parses a json struct tag: its name and options. */
export function parseJsonTag(tag: string): { name: string; omitempty: boolean; omitzero: boolean; inline: boolean; skip: boolean } {
  const [name, ...opts] = tag.split(',');
  return { name, omitempty: opts.includes('omitempty'), omitzero: opts.includes('omitzero'), inline: opts.includes('inline'), skip: name === '-' && opts.length === 0 };
}

export class GoDeclarations {
  private readonly cache = new Map<string, Declaration | null>();
  private readonly packages = new Map<string, PackageInfo>();

  constructor(private readonly registry: MarkerRegistry) {}

  /** The declaration of `import/path.Name`, if the extracted sources have it. */
  get(id: string): Declaration | undefined {
    const hit = this.cache.get(id);
    if (hit !== undefined) return hit ?? undefined;
    const decl = this.load(id);
    this.cache.set(id, decl ?? null);
    return decl;
  }

  private load(id: string): Declaration | undefined {
    const dot = id.lastIndexOf('.');
    const pkgPath = id.slice(0, dot);
    const name = id.slice(dot + 1);
    const goDecl = loadGoTypes().packages[pkgPath]?.[name];
    if (!goDecl) return undefined;
    const where = `${pkgPath}.${name}`;
    return {
      id,
      name,
      pkg: this.packageInfo(pkgPath),
      doc: goDecl.doc,
      markers: this.registry.collect(goMarkers([...goDecl.extraMarkers, ...goDecl.doc], where), 'type', false),
      type: this.convert(goDecl.type, where),
      pos: { file: GO_SOURCE, line: 0, col: 0 },
      local: false,
    };
  }

  private packageInfo(pkgPath: string): PackageInfo {
    let pkg = this.packages.get(pkgPath);
    if (!pkg) this.packages.set(pkgPath, (pkg = { id: pkgPath, markers: this.registry.collect([], 'package', false) }));
    return pkg;
  }

  private convert(t: GoTypeExpr, where: string): TypeExpr {
    switch (t.kind) {
      case 'basic': {
        const scalar = basicScalars[t.name];
        return scalar ? { kind: 'scalar', name: scalar } : { kind: 'unknown' };
      }
      case 'named':
        return { kind: 'ref', id: `${t.pkg}.${t.name}` };
      case 'pointer':
        return this.convert(t.elem, where);
      case 'slice':
      case 'array':
        if (t.elem.kind === 'basic' && (t.elem.name === 'byte' || t.elem.name === 'uint8')) return { kind: 'scalar', name: 'bytes' };
        return { kind: 'array', elem: this.convert(t.elem, where) };
      case 'map':
        return { kind: 'map', elem: this.convert(t.elem, where) };
      case 'interface':
        return { kind: 'unknown' };
      case 'struct':
        return { kind: 'struct', fields: t.fields.flatMap((f) => this.field(f, where)) };
    }
  }

  private field(f: GoField, where: string): Field[] {
    // A field without a json tag is not serialized by controller-gen's rules.
    if (f.tag === '') return [];
    const tag = parseJsonTag(f.tag);
    if (tag.skip) return [];
    const inline = f.embedded && (tag.inline || tag.name === '');
    return [
      {
        name: inline ? '' : tag.name || f.name,
        inline,
        optionalBySyntax: tag.omitempty || tag.omitzero,
        doc: f.doc,
        markers: this.registry.collect(goMarkers(f.doc, `${where}.${f.name}`), 'field', false),
        type: this.convert(f.type, where),
        pos: { file: GO_SOURCE, line: 0, col: 0 },
      },
    ];
  }
}
