/**
 * The marker registry: every marker the generator understands, found by name
 * and target as controller-tools' `markers.Registry` finds them (the whole name
 * `a:b:c` first, then `a:b` with `c` as the first argument's name). Markers are
 * collected from comments into a {@link MarkerSet} per declaration; a marker that
 * is not registered is an error in TypeScript sources, since a typo would
 * otherwise be silently ignored.
 */
import type { ArgValue } from './arguments.js';
import { parseMarkerArgs, splitMarker, type MarkerDefinition, type MarkerTarget, type MarkerValue, type RawMarker } from './definition.js';
import { MarkerSyntaxError } from './scanner.js';
import { CodegenError } from '../errors.js';

export class MarkerRegistry {
  private readonly byTarget = new Map<MarkerTarget, Map<string, MarkerDefinition>>();
  private readonly all: MarkerDefinition[] = [];

  constructor(defs: Iterable<MarkerDefinition>) {
    for (const def of defs) this.register(def);
  }

  register(def: MarkerDefinition): void {
    this.all.push(def);
    for (const target of def.targets) {
      let map = this.byTarget.get(target);
      if (!map) this.byTarget.set(target, (map = new Map()));
      if (map.has(def.name)) throw new Error(`marker ${def.name} registered twice for ${target}`);
      map.set(def.name, def);
    }
  }

  /** Every definition, in registration order (the reference lists them so). */
  definitions(): readonly MarkerDefinition[] {
    return this.all;
  }

  lookup(text: string, target: MarkerTarget): MarkerDefinition | undefined {
    const map = this.byTarget.get(target);
    if (!map) return undefined;
    const { name, anonymousName } = splitMarker(text);
    return map.get(anonymousName) ?? map.get(name);
  }

  /** Whether some target knows this marker (to tell "misplaced" from "unknown"). */
  lookupAnyTarget(text: string): MarkerDefinition | undefined {
    for (const target of ['package', 'type', 'field'] as const) {
      const def = this.lookup(text, target);
      if (def) return def;
    }
    return undefined;
  }

  /**
   * Parses the markers of one declaration. `strict` (TypeScript sources) makes
   * unknown and misplaced markers errors; Go sources carry markers of many other
   * generators, which controller-gen skips, and so do we.
   */
  collect(raws: readonly RawMarker[], target: MarkerTarget, strict: boolean): MarkerSet {
    const values: MarkerValue[] = [];
    for (const raw of raws) {
      const def = this.lookup(raw.text, target);
      if (!def) {
        if (!strict) continue;
        const elsewhere = this.lookupAnyTarget(raw.text);
        const name = splitMarker(raw.text).anonymousName;
        throw new CodegenError(
          elsewhere
            ? `marker +${elsewhere.name} cannot be used on a ${target} (it applies to: ${elsewhere.targets.join(', ')})`
            : `unknown marker +${name}`,
          raw.file,
          raw.line,
          raw.col,
        );
      }
      try {
        values.push({ def, value: parseMarkerArgs(def, raw.text), raw });
      } catch (err) {
        if (!(err instanceof MarkerSyntaxError)) throw err;
        if (!strict) continue;
        throw new CodegenError(`invalid marker +${def.name}: ${err.message}`, raw.file, raw.line, raw.col + err.offset);
      }
    }
    return new MarkerSet(values);
  }
}

/** The parsed markers of one declaration. */
export class MarkerSet {
  constructor(readonly values: readonly MarkerValue[] = []) {}

  has(name: string): boolean {
    return this.values.some((v) => v.def.name === name);
  }

  /** The last value of a marker (a later marker wins, as a later Go marker does). */
  get(name: string): ArgValue | undefined {
    for (let i = this.values.length - 1; i >= 0; i--) if (this.values[i].def.name === name) return this.values[i].value;
    return undefined;
  }

  /** The marker with its position, for error messages. */
  find(name: string): MarkerValue | undefined {
    for (let i = this.values.length - 1; i >= 0; i--) if (this.values[i].def.name === name) return this.values[i];
    return undefined;
  }

  all(name: string): MarkerValue[] {
    return this.values.filter((v) => v.def.name === name);
  }

  concat(other: MarkerSet): MarkerSet {
    return new MarkerSet([...this.values, ...other.values]);
  }
}
