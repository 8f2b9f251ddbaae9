/**
 * Decoding create and update bodies the way kube-apiserver's JSON and YAML
 * serializers do, with their error texts:
 *
 * - YAML is converted to JSON first (sigs.k8s.io/yaml, go-yaml's messages);
 * - `meta.Interpret` then reads apiVersion and kind with encoding/json, so
 *   invalid JSON, a body that is no object, or an apiVersion/kind that is no
 *   string, fail with `couldn't get version/kind; json parse error: ...`, and an
 *   apiVersion with two slashes with `unexpected GroupVersion string: a/b/c`;
 * - those failures reach the client as kube's transformDecodeError words them:
 *   `the object provided is unrecognized (must be of type ConfigMap): <why> (<summary>)`.
 *
 * A `null` body decodes to an empty object, as it does into a Go struct (the
 * kind and version then default to the endpoint's).
 */
import { parseYamlKeepingLastKey } from './lazy-yaml.js';
import { tagDuplicateFields, tagYamlDuplicateKeys } from './duplicate-fields.js';
import { StatusError, badRequest } from '@operant/apimachinery';
import { containsNonFinite, firstNonFiniteLiteral, jsonDepthExceeds, maxBodyNestingDepth, parseJsonLikeGo } from './go-json.js';

/** How Go prints the anonymous struct meta.Interpret decodes into. */
const findKindType = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** kube's summarizeData(body, 30): the start of the body, as text when it looks like JSON, else in hex. */
export function summarizeBody(body: Buffer, maxLength = 30): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, maxLength);
  const more = body.length > maxLength ? ' ...' : '';
  return body[0] === 0x7b ? `${head.toString('utf8')}${more}` : `${head.toString('hex')}${more}`;
}

/** The 400 for a body the serializer could not even read apiVersion and kind from. */
export function unrecognizedBody(into: string, why: string, body: Buffer): StatusError {
  return badRequest(`the object provided is unrecognized (must be of type ${into}): ${why} (${summarizeBody(body)})`);
}

/** What encoding/json calls a JSON value's type in UnmarshalTypeError. */
function jsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** meta.Interpret: apiVersion and kind must be strings (or absent/null), the apiVersion a group/version. */
function interpret(value: unknown, into: string, body: Buffer): Record<string, unknown> {
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw unrecognizedBody(into, `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(value)} into Go value of type ${findKindType}`, body);
  }
  const obj = value as Record<string, unknown>;
  let apiVersion = '';
  for (const key of Object.keys(obj)) {
    // encoding/json matches field names case-insensitively.
    const lower = key.toLowerCase();
    if (lower !== 'apiversion' && lower !== 'kind') continue;
    const v = obj[key];
    if (v === null) continue;
    if (typeof v !== 'string') {
      const field = lower === 'kind' ? 'kind' : 'apiVersion';
      throw unrecognizedBody(into, `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(v)} into Go struct field .${field} of type string`, body);
    }
    if (lower === 'apiversion') apiVersion = v;
  }
  if (apiVersion.split('/').length > 2) throw unrecognizedBody(into, `unexpected GroupVersion string: ${apiVersion}`, body);
  return obj;
}

/** Decodes a JSON create/update body for an endpoint of kind `into`. */
export function decodeJsonObject(body: Buffer, into: string): Record<string, unknown> {
  const parsed = parseJsonLikeGo(body, maxBodyNestingDepth);
  if ('syntax' in parsed) throw unrecognizedBody(into, `couldn't get version/kind; json parse error: ${parsed.syntax}`, body);
  const { value, text } = parsed;
  tagDuplicateFields(value, text);
  if (parsed.nonFinite) {
    // Go refuses a number out of float64 range; JSON.parse would make it Infinity.
    throw unrecognizedBody(into, `json: cannot unmarshal number ${firstNonFiniteLiteral(text) ?? 'Inf'} into Go value of type float64`, body);
  }
  return interpret(value, into, body);
}

/** go-yaml's words for the errors of the JS YAML parser we can map with confidence; the parser's own otherwise. */
function goYamlError(e: unknown): string {
  const err = e as { code?: string; linePos?: Array<{ line: number }>; message?: string };
  const line = err.linePos?.[0]?.line ?? 1;
  // go-yaml reports scanner errors with a 1-based line, and none on the first line.
  const where = line > 1 ? `line ${line}: ` : '';
  if (String(err.message).startsWith('json: ')) return String(err.message);
  switch (err.code) {
    case 'BLOCK_AS_IMPLICIT_KEY':
      return `yaml: ${where}mapping values are not allowed in this context`;
    case 'TAB_AS_INDENT':
      return `yaml: ${where}found character that cannot start any token`;
    default:
      return `yaml: ${where}${String(err.message ?? e).split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`;
  }
}

/** Decodes a YAML create/update body for an endpoint of kind `into`. */
export function decodeYamlObject(body: Buffer, into: string): Record<string, unknown> {
  let value: unknown;
  let duplicates: string[];
  try {
    // A key named twice keeps its last value, as YAMLToJSON keeps it; strict decoding reports it.
    ({ value, duplicates } = parseYamlKeepingLastKey(body.toString('utf8'), { version: '1.1', maxAliasCount: 100 }));
    // Only what JSON can say survives YAMLToJSON (no Dates, Maps or cycles).
    if (jsonDepthExceeds(value, maxBodyNestingDepth)) throw new Error(`exceeded max depth of ${maxBodyNestingDepth}`);
    // YAML's .inf and .nan do not convert to JSON (json.Marshal: unsupported value).
    if (containsNonFinite(value)) throw new Error('json: unsupported value: +Inf');
    value = value === undefined ? null : (JSON.parse(JSON.stringify(value) ?? 'null') as unknown);
  } catch (e) {
    // A body whose aliases expand past the limit is too large, not unrecognized.
    if (e instanceof StatusError) throw e;
    throw unrecognizedBody(into, goYamlError(e), body);
  }
  tagYamlDuplicateKeys(value, duplicates);
  return interpret(value, into, body);
}
