/**
 * Go's encoding/json for typed values: what `json.Marshal` writes for a JSON
 * document after Go has decoded it into its structs. That is not
 * `JSON.stringify`: Go drops the fields its structs do not declare, writes the
 * declared ones in declaration order, fills absent non-`omitempty` fields with
 * their zero value (`"resources":{}`, `"containerPort":0`), never omits a
 * struct, sorts map keys, canonicalizes quantities and escapes `<`, `>`, `&`.
 * A struct is described by its fields as `[json tag, Go type]`, the type
 * being `string`, `bool`, `int32`, `int64`, `Quantity`, `IntOrString`, `*T`,
 * `[]T`, `map[string]T` or the name of another struct; an embedded struct is
 * `[',inline', Name]` and its fields are promoted, as Go does.
 */
import { canonicalQuantity } from '@operant/apimachinery';

/** A Go struct: its fields as [json tag, Go type], in declaration order. */
export type GoStruct = ReadonlyArray<readonly [tag: string, type: string]>;

/** Renders `value`, read as Go type `type`, as `json.Marshal` would. */
export function marshalGo(value: unknown, type: string, structs: Readonly<Record<string, GoStruct>>): string {
  if (type.startsWith('*')) return value === undefined || value === null ? 'null' : marshalGo(value, type.slice(1), structs);
  if (type.startsWith('[]')) {
    if (!Array.isArray(value)) return 'null';
    const elem = type.slice(2);
    return `[${value.map((v) => marshalGo(v, elem, structs)).join(',')}]`;
  }
  if (type.startsWith('map[string]')) {
    if (!isRecord(value)) return 'null';
    const elem = type.slice('map[string]'.length);
    const keys = Object.keys(value).sort(compareUtf8);
    return `{${keys.map((k) => `${goString(k)}:${marshalGo(value[k], elem, structs)}`).join(',')}}`;
  }
  switch (type) {
    case 'string':
      return goString(typeof value === 'string' ? value : '');
    case 'bool':
      return value === true ? 'true' : 'false';
    case 'int32':
    case 'int64':
      return typeof value === 'number' ? String(Math.trunc(value)) : '0';
    case 'Quantity':
      return goString(canonicalQuantity(typeof value === 'string' || typeof value === 'number' ? value : '0'));
    case 'IntOrString':
      return typeof value === 'string' ? goString(value) : String(typeof value === 'number' ? Math.trunc(value) : 0);
  }
  const fields: string[] = [];
  writeFields(isRecord(value) ? value : {}, type, structs, fields);
  return `{${fields.join(',')}}`;
}

function writeFields(obj: Record<string, unknown>, name: string, structs: Readonly<Record<string, GoStruct>>, out: string[]): void {
  const struct = structs[name];
  if (!struct) throw new Error(`go-json: no struct ${name}`);
  for (const [tag, type] of struct) {
    const [key, ...options] = tag.split(',');
    if (key === '') {
      writeFields(obj, type, structs, out); // embedded: its fields are promoted
      continue;
    }
    const value = obj[key!];
    if (options.includes('omitempty') && isEmpty(value, type, structs)) continue;
    out.push(`${goString(key!)}:${marshalGo(value, type, structs)}`);
  }
}

/** encoding/json's isEmptyValue: false, 0, "", a nil pointer, an empty slice or map; never a struct. */
function isEmpty(value: unknown, type: string, structs: Readonly<Record<string, GoStruct>>): boolean {
  if (type.startsWith('*')) return value === undefined || value === null;
  if (type.startsWith('[]')) return !Array.isArray(value) || value.length === 0;
  if (type.startsWith('map[string]')) return !isRecord(value) || Object.keys(value).length === 0;
  switch (type) {
    case 'string':
      return typeof value !== 'string' || value === '';
    case 'bool':
      return value !== true;
    case 'int32':
    case 'int64':
      return typeof value !== 'number' || value === 0;
  }
  if (type !== 'Quantity' && type !== 'IntOrString' && !structs[type]) throw new Error(`go-json: no struct ${type}`);
  return false;
}

/** A Go string literal: JSON's, plus the HTML-safe escapes Go adds. */
export function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Go sorts map keys by their UTF-8 bytes, which is not JavaScript's UTF-16 order past U+FFFF. */
function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Any JSON value as Go writes an interface{} it decoded: object keys sorted, Go's string escapes. */
export function goJsonValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJsonValue).join(',')}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value).sort(compareUtf8).map((k) => `${goString(k)}:${goJsonValue(value[k])}`).join(',')}}`;
  }
  return typeof value === 'string' ? goString(value) : JSON.stringify(value ?? null);
}
