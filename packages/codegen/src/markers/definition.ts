/**
 * A marker definition: a name, what it may annotate, and typed arguments, the
 * way controller-tools' `markers.Definition` describes one. Parsing follows
 * controller-tools' rules for splitting `+a:b:c=x,d=y` into a name and arguments:
 * `+kubebuilder:validation:Minimum=0` has one anonymous argument, and
 * `+kubebuilder:printcolumn:name="Age",type=date` names its arguments after the
 * last colon of the name.
 */
import { parseArg, type ArgType, type ArgValue } from './arguments.js';
import { EOF, MarkerSyntaxError, Scanner } from './scanner.js';
import type { JSONSchemaProps } from '../schema/props.js';

/** What a marker annotates: a package (a file in TypeScript), a type, or a field. */
export type MarkerTarget = 'package' | 'type' | 'field';

export interface ArgSpec {
  type: ArgType;
  optional?: boolean;
  /** One line for the marker reference. */
  help?: string;
}

export interface MarkerDefinition {
  /** The name after `+`, e.g. `kubebuilder:validation:Minimum`. */
  name: string;
  targets: readonly MarkerTarget[];
  /** One anonymous argument (`+name=value`), named arguments, or neither (a flag). */
  anonymous?: ArgSpec;
  args?: Readonly<Record<string, ArgSpec>>;
  /** The marker's help text for the generated reference. */
  help: string;
  /** The group it is listed under in the reference (CRD, CRD validation, RBAC, webhook, ...). */
  category: string;
  /** Deprecated markers still work; the reference says what replaces them. */
  deprecated?: string;
  /**
   * For schema markers: edits the schema of the field or type it annotates, or
   * throws an Error whose message names what is wrong (controller-tools' texts).
   */
  applyToSchema?: (schema: JSONSchemaProps, value: ArgValue) => void;
  /** Lower runs first (controller-tools' ApplyPriority; the default is 10). */
  priority?: number;
  /** `+kubebuilder:validation:items:*`: applies to the items of an array. */
  items?: boolean;
}

/** A marker found in a comment, not yet interpreted. */
export interface RawMarker {
  /** The text from `+` to the end of the line, trimmed. */
  text: string;
  file: string;
  line: number;
  /** 1-based column of the `+`. */
  col: number;
}

/** A marker parsed against its definition. */
export interface MarkerValue {
  def: MarkerDefinition;
  /** The anonymous argument's value, or the named arguments. Flags have `true`. */
  value: ArgValue;
  raw: RawMarker;
}

/** Splits `+a:b:c=args` into the name `a:b`, the whole name `a:b:c`, and the argument text, as controller-tools does. */
export function splitMarker(text: string): { name: string; anonymousName: string; rest: string } {
  const body = text.startsWith('+') ? text.slice(1) : text;
  const eq = body.indexOf('=');
  if (eq < 0) return { name: body, anonymousName: body, rest: '' };
  const anonymousName = body.slice(0, eq);
  const colon = anonymousName.lastIndexOf(':');
  return { name: colon < 0 ? anonymousName : anonymousName.slice(0, colon), anonymousName, rest: body.slice(eq + 1) };
}

/**
 * Parses a marker's arguments. Throws a {@link MarkerSyntaxError} whose offset
 * is relative to the marker text (the `+` is offset 0).
 */
export function parseMarkerArgs(def: MarkerDefinition, text: string): ArgValue {
  const { name, anonymousName, rest } = splitMarker(text);
  const hasNamedArgs = def.args !== undefined && Object.keys(def.args).length > 0;
  let fields = rest;
  // `+kubebuilder:printcolumn:name=Age,...`: the last name segment is the first argument's name.
  if (!def.anonymous && hasNamedArgs && anonymousName.length >= name.length + 1) {
    fields = `${anonymousName.slice(name.length + 1)}=${rest}`;
  }
  // Offsets in `fields` map back to the marker text after the `=` (or the name, when it was moved).
  const base = text.length - fields.length;
  const s = new Scanner(fields);
  try {
    const value = parseFields(def, s, hasNamedArgs);
    const extra = s.scan();
    if (extra.kind !== EOF) {
      throw new MarkerSyntaxError(`extra arguments provided: ${JSON.stringify(fields.slice(extra.offset))}`, extra.offset);
    }
    return value;
  } catch (err) {
    if (err instanceof MarkerSyntaxError) throw new MarkerSyntaxError(err.message, base + err.offset);
    throw err;
  }
}

function parseFields(def: MarkerDefinition, s: Scanner, hasNamedArgs: boolean): ArgValue {
  if (def.anonymous) {
    // A bare boolean marker (`+kubebuilder:object:root`) reads as true.
    if (s.peekNoSpace() === '') {
      if (def.anonymous.type.kind === 'bool') return true;
      if (def.anonymous.optional) return null;
      throw new MarkerSyntaxError(`missing argument ${JSON.stringify('')} (this marker takes a value: +${def.name}=...)`, 0);
    }
    return parseArg(s, def.anonymous.type);
  }
  if (!hasNamedArgs) return true;
  const out: Record<string, ArgValue> = {};
  while (s.peekNoSpace() !== '') {
    const nameTok = s.expect('ident', 'argument name');
    s.expect('=', 'equals');
    const spec = def.args?.[nameTok.text];
    if (!spec) throw new MarkerSyntaxError(`unknown argument ${JSON.stringify(nameTok.text)}`, nameTok.offset);
    out[nameTok.text] = parseArg(s, spec.type);
    if (s.peekNoSpace() === '') break;
    s.expect(',', 'comma');
  }
  for (const [argName, spec] of Object.entries(def.args ?? {})) {
    if (!spec.optional && !(argName in out)) throw new MarkerSyntaxError(`missing argument ${JSON.stringify(argName)}`, s.offset);
  }
  return out;
}
