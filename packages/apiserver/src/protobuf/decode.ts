/**
 * Decoding Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`)
 * into the JSON objects kube's Go types would marshal to, so the rest of the
 * server only ever sees JSON. kubectl and client-go send typed objects this way.
 *
 * The message layouts come from `descriptors.json`, extracted from kubectl's
 * embedded `generated.proto` descriptors by `scripts/extract-proto-descriptors.ts`.
 * The apimachinery types with custom JSON forms (Time, IntOrString, Quantity,
 * RawExtension, ...) are decoded by hand below.
 */
import { readFileSync } from 'node:fs';
import { StatusError, badRequest } from '@operant/apimachinery';

/** The media type of Kubernetes protobuf bodies. */
export const kubeProtobufMediaType = 'application/vnd.kubernetes.protobuf';

/** The 4 bytes (`k8s\x00`) every Kubernetes protobuf body starts with. */
export const kubeProtobufMagic: readonly number[] = [0x6b, 0x38, 0x73, 0x00];

/** Malformed protobuf wire data. */
export class ProtoWireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtoWireError';
  }
}

/** Protobuf wire types. */
export const WireType = { varint: 0, fixed64: 1, bytes: 2, startGroup: 3, endGroup: 4, fixed32: 5 } as const;

/** A bounds-checked reader of protobuf wire data. Every read throws ProtoWireError rather than reading past `end`. */
export class ProtoReader {
  /** The offset of the next byte to read. */
  pos: number;
  /** The offset just past the last byte this reader may read. */
  readonly end: number;

  constructor(
    private readonly buf: Uint8Array,
    start = 0,
    end = buf.length,
  ) {
    this.pos = start;
    this.end = end;
  }

  /** True when every byte has been read. */
  get done(): boolean {
    return this.pos >= this.end;
  }

  /** Reads a field key: the field number and wire type. */
  tag(): { field: number; wire: number } {
    const key = this.varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0 || field > 0x1fffffff) throw new ProtoWireError(`invalid field number ${field} at offset ${this.pos}`);
    return { field, wire };
  }

  /** Reads a varint (at most 10 bytes) as an unsigned 64-bit value. */
  varint(): bigint {
    // Fast path: values below 2^28 fit in plain number arithmetic.
    let lo = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (this.pos >= this.end) throw new ProtoWireError('truncated varint');
      const b = this.buf[this.pos++];
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) return BigInt(lo >>> 0);
    }
    let value = BigInt(lo >>> 0);
    for (let shift = 28n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw new ProtoWireError('truncated varint');
      const b = this.buf[this.pos++];
      value |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, value);
    }
    throw new ProtoWireError('varint longer than 10 bytes');
  }

  /** Reads a length-delimited field's bytes (a view, not a copy). */
  bytes(): Uint8Array {
    const len = this.varint();
    if (len > BigInt(this.end - this.pos)) throw new ProtoWireError(`length ${len} runs past the end of the message`);
    const start = this.pos;
    this.pos += Number(len);
    return this.buf.subarray(start, this.pos);
  }

  /** Reads 4 little-endian bytes. */
  fixed32(): Uint8Array {
    return this.take(4);
  }

  /** Reads 8 little-endian bytes. */
  fixed64(): Uint8Array {
    return this.take(8);
  }

  /** Skips a field's value of the given wire type. */
  skip(wire: number): void {
    switch (wire) {
      case WireType.varint:
        this.varint();
        return;
      case WireType.fixed64:
        this.take(8);
        return;
      case WireType.bytes:
        this.bytes();
        return;
      case WireType.fixed32:
        this.take(4);
        return;
      default:
        // Groups are proto1-era and never appear in Kubernetes messages.
        throw new ProtoWireError(`unsupported wire type ${wire}`);
    }
  }

  private take(n: number): Uint8Array {
    if (this.end - this.pos < n) throw new ProtoWireError(`truncated ${n}-byte field`);
    const start = this.pos;
    this.pos += n;
    return this.buf.subarray(start, this.pos);
  }
}

/** The scalar protobuf types, named as in `.proto` files. */
export type ScalarType =
  | 'double' | 'float' | 'int64' | 'uint64' | 'int32' | 'fixed64' | 'fixed32' | 'bool'
  | 'string' | 'bytes' | 'uint32' | 'enum' | 'sfixed32' | 'sfixed64' | 'sint32' | 'sint64';

/**
 * One field of a message in `descriptors.json`: `[number, jsonName, type, flags]`.
 * `type` is a ScalarType or a message's full name. `flags` letters: `r` repeated,
 * `i` inlined into the parent's JSON (Go's `json:",inline"`), `o` a non-pointer
 * Go scalar, whose zero value Go's JSON omits (the wire always carries it).
 */
export type DescriptorField = [number: number, name: string, type: string, flags: string];

/** A message in `descriptors.json`. */
export interface DescriptorMessage {
  fields: DescriptorField[];
  /** Set on the synthetic `XxxEntry` messages of map fields (key = 1, value = 2). */
  mapEntry?: boolean;
  /** Set on go-to-protobuf's wrappers of named slice types (`ExtraValue`, `Verbs`): one repeated `items`, JSON the bare array. */
  listWrapper?: boolean;
}

/** The shape of `descriptors.json`. */
export interface DescriptorTable {
  /** The `generated.proto` files the table was extracted from. */
  files: string[];
  /** The protobuf packages in the table, e.g. `k8s.io.api.core.v1`. */
  packages: string[];
  /** Messages by full name, e.g. `k8s.io.api.core.v1.Namespace`. */
  messages: Record<string, DescriptorMessage>;
}

/** The result of decodeKubeProtobuf. */
export interface DecodedKubeProtobuf {
  apiVersion: string;
  kind: string;
  /** The object as kube's JSON encoding writes it, `kind` and `apiVersion` included. */
  object: Record<string, unknown>;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const APIEXT = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
const acceptedMediaTypes = ['application/json', 'application/yaml', kubeProtobufMediaType];
// Deep enough for any real object (CRD schemas included), shallow enough for the stack.
const maxDepth = 500;

interface Field {
  number: number;
  name: string;
  /** The message's full name, or undefined for scalars. */
  message?: string;
  scalar?: ScalarType;
  repeated: boolean;
  inline: boolean;
  omitZero: boolean;
}

interface Message {
  name: string;
  fields: Field[];
  byNumber: Map<number, Field>;
  mapEntry: boolean;
  /** A go-to-protobuf wrapper of a named slice type (`ExtraValue`, `Verbs`): its JSON is the bare array. */
  listWrapper: boolean;
}

interface Schema {
  messages: Map<string, Message>;
  packages: string[];
}

const scalarTypes: ReadonlySet<string> = new Set<ScalarType>([
  'double', 'float', 'int64', 'uint64', 'int32', 'fixed64', 'fixed32', 'bool',
  'string', 'bytes', 'uint32', 'enum', 'sfixed32', 'sfixed64', 'sint32', 'sint64',
]);

/** Types whose JSON is not their message's fields; decoded by hand. */
type SpecialDecoder = (bytes: Uint8Array, depth: number) => unknown;

const specialDecoders = new Map<string, SpecialDecoder>([
  [`${META}.Time`, decodeTime],
  [`${META}.MicroTime`, decodeMicroTime],
  [`${META}.Duration`, decodeDuration],
  [`${META}.FieldsV1`, (b) => decodeRawJson(b, false, 0)],
  ['k8s.io.apimachinery.pkg.runtime.RawExtension', (b, depth) => decodeRawJson(b, true, depth)],
  ['k8s.io.apimachinery.pkg.util.intstr.IntOrString', decodeIntOrString],
  ['k8s.io.apimachinery.pkg.api.resource.Quantity', decodeQuantity],
  [`${APIEXT}.JSON`, (b) => decodeRawJson(b, false, 0)],
  [`${APIEXT}.JSONSchemaPropsOrArray`, decodeSchemaOrArray],
  [`${APIEXT}.JSONSchemaPropsOrBool`, decodeSchemaOrBool],
  [`${APIEXT}.JSONSchemaPropsOrStringArray`, decodeSchemaOrStringArray],
]);

let loaded: Schema | undefined;

/** The compiled descriptor table, read on first use. */
function schema(): Schema {
  if (!loaded) {
    const table = JSON.parse(readFileSync(new URL('./descriptors.json', import.meta.url), 'utf8')) as DescriptorTable;
    loaded = compileDescriptors(table);
  }
  return loaded;
}

function compileDescriptors(table: DescriptorTable): Schema {
  const messages = new Map<string, Message>();
  for (const [name, desc] of Object.entries(table.messages)) {
    const fields = desc.fields.map(([number, fieldName, type, flags]): Field => ({
      number,
      name: fieldName,
      ...(scalarTypes.has(type) ? { scalar: type as ScalarType } : { message: type }),
      repeated: flags.includes('r'),
      inline: flags.includes('i'),
      omitZero: flags.includes('o'),
    }));
    messages.set(name, {
      name,
      fields,
      byNumber: new Map(fields.map((f) => [f.number, f])),
      mapEntry: desc.mapEntry === true,
      listWrapper: desc.listWrapper === true,
    });
  }
  return { messages, packages: table.packages };
}

// metav1.AddToGroupVersion registers these in every group version (Status in the legacy one).
const metaKindsInEveryGroup: ReadonlySet<string> = new Set([
  'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'GetOptions', 'ListOptions', 'WatchEvent', 'Status',
]);

/**
 * The message full name of a kind, e.g. `apps/v1` `Deployment` → `k8s.io.api.apps.v1.Deployment`.
 * A group's package is the one ending in `<first label of the group>.<version>`
 * (`core` for the legacy group), which holds for every kube API package. Only
 * kube's own groups qualify (one label, or ending in `.k8s.io`), so a custom
 * resource in, say, `apps.example.com` is not mistaken for a built-in one.
 */
function messageNameOf(s: Schema, apiVersion: string, kind: string): string | undefined {
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  if (group.includes('.') && !group.endsWith('.k8s.io')) return undefined;
  const suffix = `.${group === '' ? 'core' : group.split('.')[0]}.${version}`;
  const candidates = s.packages.filter((p) => p.endsWith(suffix)).map((p) => `${p}.${kind}`);
  if (metaKindsInEveryGroup.has(kind)) candidates.push(`${META}.${kind}`);
  return candidates.find((name) => {
    const m = s.messages.get(name);
    return m !== undefined && !m.mapEntry;
  });
}

/**
 * Decodes a Kubernetes protobuf body (`k8s\x00` + runtime.Unknown) into the
 * JSON object kube's Go types would marshal to.
 *
 * Throws a StatusError: 400 BadRequest for malformed bytes, 415
 * UnsupportedMediaType for a kind with no protobuf schema here (kube serves
 * custom resources as JSON only, too).
 */
export function decodeKubeProtobuf(body: Uint8Array): DecodedKubeProtobuf {
  try {
    return decodeUnchecked(body, 0);
  } catch (e) {
    if (e instanceof ProtoWireError) throw badRequest(`unable to decode the protobuf body: ${e.message}`);
    throw e;
  }
}

function decodeUnchecked(body: Uint8Array, depth: number): DecodedKubeProtobuf {
  if (body.length < kubeProtobufMagic.length || kubeProtobufMagic.some((b, i) => body[i] !== b)) {
    throw badRequest(`provided data does not appear to be a protobuf message, expected prefix [${kubeProtobufMagic.join(' ')}]`);
  }
  // runtime.Unknown: typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2, contentEncoding = 3, contentType = 4.
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array = new Uint8Array(0);
  let contentEncoding = '';
  const r = new ProtoReader(body, kubeProtobufMagic.length);
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WireType.bytes) {
      const t = new ProtoReader(r.bytes());
      while (!t.done) {
        const tt = t.tag();
        if (tt.field === 1 && tt.wire === WireType.bytes) apiVersion = utf8(t.bytes());
        else if (tt.field === 2 && tt.wire === WireType.bytes) kind = utf8(t.bytes());
        else t.skip(tt.wire);
      }
    } else if (field === 2 && wire === WireType.bytes) raw = r.bytes();
    else if (field === 3 && wire === WireType.bytes) contentEncoding = utf8(r.bytes());
    else r.skip(wire);
  }
  if (contentEncoding !== '') throw badRequest(`unsupported content encoding ${JSON.stringify(contentEncoding)} in the protobuf body`);
  if (kind === '') throw badRequest("Object 'Kind' is missing in the protobuf body");
  if (apiVersion === '') throw badRequest(`Object 'apiVersion' is missing in the protobuf body of kind ${JSON.stringify(kind)}`);

  const s = schema();
  const name = messageNameOf(s, apiVersion, kind);
  if (name === undefined) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${acceptedMediaTypes.join(', ')} ` +
        `(protobuf is supported for built-in kinds only, not ${JSON.stringify(kind)} in ${JSON.stringify(apiVersion)}; send JSON)`,
    );
  }
  const fields = decodeMessage(s, name, raw, depth);
  const object: Record<string, unknown> = { kind, apiVersion };
  if (isPlainObject(fields)) Object.assign(object, fields);
  return { apiVersion, kind, object };
}

/** Decodes one message (or a special type) into its JSON value; undefined means Go writes null, which callers omit. */
function decodeMessage(s: Schema, name: string, bytes: Uint8Array, depth: number): unknown {
  if (depth > maxDepth) throw new ProtoWireError(`messages nested deeper than ${maxDepth}`);
  const special = specialDecoders.get(name);
  if (special) return special(bytes, depth);
  const msg = lookup(s, name);
  const { values, pieces } = readFields(s, msg, bytes, depth);
  if (msg.listWrapper) return values.get(1) ?? [];

  const out: Record<string, unknown> = {};
  for (const f of msg.fields) {
    let v: unknown;
    if (f.message !== undefined && !f.repeated) {
      const chunks = pieces.get(f.number);
      if (!chunks) continue;
      v = decodeMessage(s, f.message, joined(chunks), depth + 1);
    } else {
      v = values.get(f.number);
    }
    if (v === undefined) continue;
    if (v instanceof Map) v = Object.fromEntries(v); // fromEntries defines own keys, so `__proto__` is safe
    else if (!f.repeated && omitted(f, v)) continue;
    if (f.inline && isPlainObject(v)) Object.assign(out, v);
    else out[f.name] = v;
  }
  return out;
}

function lookup(s: Schema, name: string): Message {
  const msg = s.messages.get(name);
  // A table that references a message it lacks is a bug in the extraction, not in the request.
  if (!msg) throw new Error(`protobuf descriptor table has no message ${name}`);
  return msg;
}

/**
 * Reads a message's known fields: scalars (last one wins), repeated values as
 * arrays, map fields as Maps, and the pieces of singular message fields, which
 * protobuf merges by concatenation.
 */
function readFields(
  s: Schema,
  msg: Message,
  bytes: Uint8Array,
  depth: number,
): { values: Map<number, unknown>; pieces: Map<number, Uint8Array[]> } {
  const values = new Map<number, unknown>();
  const pieces = new Map<number, Uint8Array[]>();
  const r = new ProtoReader(bytes);
  while (!r.done) {
    const { field: number, wire } = r.tag();
    const f = msg.byNumber.get(number);
    if (!f) {
      r.skip(wire); // unknown fields are dropped, as Go's unmarshalling does
      continue;
    }
    if (f.message !== undefined) {
      if (wire !== WireType.bytes) throw wireMismatch(msg, f, wire);
      const chunk = r.bytes();
      if (!f.repeated) {
        pieces.set(number, [...(pieces.get(number) ?? []), chunk]);
        continue;
      }
      const target = specialDecoders.has(f.message) ? undefined : lookup(s, f.message);
      if (target?.mapEntry) {
        const [key, value] = decodeMapEntry(s, target, chunk, depth + 1);
        const existing = values.get(number);
        const map = existing instanceof Map ? existing : new Map<string, unknown>();
        map.set(key, value);
        values.set(number, map);
      } else {
        const v = decodeMessage(s, f.message, chunk, depth + 1);
        pushValue(values, number, v === undefined ? null : v);
      }
    } else if (f.repeated && wire === WireType.bytes && f.scalar !== 'string' && f.scalar !== 'bytes') {
      const packed = new ProtoReader(r.bytes());
      while (!packed.done) pushValue(values, number, readScalar(packed, msg, f, packedWireType(f.scalar)));
    } else {
      const v = readScalar(r, msg, f, wire);
      if (f.repeated) pushValue(values, number, v);
      else values.set(number, v);
    }
  }
  return { values, pieces };
}

function pushValue(values: Map<number, unknown>, number: number, v: unknown): void {
  const existing = values.get(number);
  if (Array.isArray(existing)) existing.push(v);
  else values.set(number, [v]);
}

function joined(chunks: Uint8Array[]): Uint8Array {
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** A map entry {key = 1, value = 2}; a missing value is its type's zero value, as in Go. */
function decodeMapEntry(s: Schema, msg: Message, bytes: Uint8Array, depth: number): [string, unknown] {
  const { values, pieces } = readFields(s, msg, bytes, depth);
  const key = String(values.get(1) ?? '');
  const f = msg.byNumber.get(2);
  if (!f) return [key, null];
  if (f.message === undefined) return [key, values.get(2) ?? zeroScalar(f.scalar)];
  const v = decodeMessage(s, f.message, joined(pieces.get(2) ?? []), depth + 1);
  return [key, v === undefined ? null : v];
}

/** Go's omitempty for what the wire always carries: empty strings and byte strings, and zero non-pointer scalars. */
function omitted(f: Field, v: unknown): boolean {
  if (f.scalar === 'bytes') return v === '';
  if (!f.omitZero) return false;
  return v === '' || v === 0 || v === false;
}

function zeroScalar(type: ScalarType | undefined): unknown {
  if (type === 'string' || type === 'bytes') return '';
  if (type === 'bool') return false;
  return 0;
}

function packedWireType(type: ScalarType | undefined): number {
  switch (type) {
    case 'double': case 'fixed64': case 'sfixed64':
      return WireType.fixed64;
    case 'float': case 'fixed32': case 'sfixed32':
      return WireType.fixed32;
    default:
      return WireType.varint;
  }
}

function wireMismatch(msg: Message, f: Field, wire: number): ProtoWireError {
  return new ProtoWireError(`field ${msg.name}.${f.name} (${f.number}) has wire type ${wire}, expected ${f.message ?? f.scalar}`);
}

function readScalar(r: ProtoReader, msg: Message, f: Field, wire: number): unknown {
  const type = f.scalar;
  if (wire !== (type === 'string' || type === 'bytes' ? WireType.bytes : packedWireType(type))) throw wireMismatch(msg, f, wire);
  switch (type) {
    case 'string':
      return utf8(r.bytes());
    case 'bytes':
      return Buffer.from(r.bytes()).toString('base64');
    case 'bool':
      return r.varint() !== 0n;
    case 'int32':
    case 'enum':
      return Number(BigInt.asIntN(32, r.varint()));
    case 'uint32':
      return Number(BigInt.asUintN(32, r.varint()));
    case 'int64':
      return Number(BigInt.asIntN(64, r.varint()));
    case 'uint64':
      return Number(r.varint());
    case 'sint32':
    case 'sint64': {
      const v = r.varint();
      return Number((v >> 1n) ^ -(v & 1n));
    }
    case 'fixed32':
      return Buffer.from(r.fixed32()).readUInt32LE(0);
    case 'sfixed32':
      return Buffer.from(r.fixed32()).readInt32LE(0);
    case 'fixed64':
      return Number(Buffer.from(r.fixed64()).readBigUInt64LE(0));
    case 'sfixed64':
      return Number(Buffer.from(r.fixed64()).readBigInt64LE(0));
    case 'float':
      return finite(Buffer.from(r.fixed32()).readFloatLE(0), msg, f);
    case 'double':
      return finite(Buffer.from(r.fixed64()).readDoubleLE(0), msg, f);
    default:
      throw new Error(`unknown scalar type ${String(type)}`);
  }
}

/** JSON has no NaN or infinities; Go's encoder refuses them too. */
function finite(n: number, msg: Message, f: Field): number {
  if (!Number.isFinite(n)) throw new ProtoWireError(`field ${msg.name}.${f.name} is ${n}, which JSON cannot hold`);
  return n;
}

function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads the varint and length-delimited fields of a small hand-decoded message, by number (last one wins). */
function smallFields(bytes: Uint8Array): Map<number, bigint | Uint8Array> {
  const out = new Map<number, bigint | Uint8Array>();
  const r = new ProtoReader(bytes);
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire === WireType.varint) out.set(field, r.varint());
    else if (wire === WireType.bytes) out.set(field, r.bytes());
    else r.skip(wire);
  }
  return out;
}

function intField(fields: Map<number, bigint | Uint8Array>, n: number): bigint {
  const v = fields.get(n);
  return typeof v === 'bigint' ? BigInt.asIntN(64, v) : 0n;
}

function bytesField(fields: Map<number, bigint | Uint8Array>, n: number): Uint8Array | undefined {
  const v = fields.get(n);
  return v instanceof Uint8Array ? v : undefined;
}

/** Timestamp {seconds = 1, nanos = 2} as a Date, normalised as Go's time.Unix does. */
function timestamp(bytes: Uint8Array, keepNanos: boolean): { date: Date; nanos: number } {
  const f = smallFields(bytes);
  let seconds = intField(f, 1);
  let nanos = keepNanos ? BigInt.asIntN(32, intField(f, 2)) : 0n;
  seconds += nanos / 1_000_000_000n;
  nanos %= 1_000_000_000n;
  if (nanos < 0n) {
    nanos += 1_000_000_000n;
    seconds -= 1n;
  }
  // Years 0..9999 keep RFC 3339's four-digit year, which toISOString writes only in that range.
  if (seconds < -62_167_219_200n || seconds > 253_402_300_799n) throw new ProtoWireError(`timestamp ${seconds}s is out of range`);
  return { date: new Date(Number(seconds) * 1000), nanos: Number(nanos) };
}

/** metav1.Time: RFC 3339 in UTC, whole seconds (Go's Unmarshal drops the nanos). Empty bytes are the zero time: null. */
function decodeTime(bytes: Uint8Array): unknown {
  if (bytes.length === 0) return undefined;
  return timestamp(bytes, false).date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** metav1.MicroTime: RFC 3339 in UTC with microseconds. */
function decodeMicroTime(bytes: Uint8Array): unknown {
  if (bytes.length === 0) return undefined;
  const { date, nanos } = timestamp(bytes, true);
  const micros = String(Math.floor(nanos / 1000)).padStart(6, '0');
  return date.toISOString().replace(/\.\d{3}Z$/, `.${micros}Z`);
}

/** metav1.Duration {duration = 1, nanoseconds} as Go's time.Duration.String() writes it. */
function decodeDuration(bytes: Uint8Array): unknown {
  return goDuration(intField(smallFields(bytes), 1));
}

/** Go's time.Duration.String(): `1h2m3.5s`, `1.5ms`, `0s`. */
export function goDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  const u = neg ? -ns : ns;
  let text: string;
  if (u < 1_000_000_000n) {
    const [unit, prec] = u < 1_000n ? ['ns', 0] : u < 1_000_000n ? ['µs', 3] : ['ms', 6];
    text = fraction(u, prec) + unit;
  } else {
    const seconds = u / 1_000_000_000n;
    text = `${seconds % 60n}${fraction(u % 1_000_000_000n, 9).replace(/^0/, '')}s`;
    const minutes = seconds / 60n;
    if (minutes > 0n) {
      text = `${minutes % 60n}m${text}`;
      const hours = minutes / 60n;
      if (hours > 0n) text = `${hours}h${text}`;
    }
  }
  return neg ? `-${text}` : text;
}

/** `v / 10^prec` with trailing zeros (and a bare point) dropped. */
function fraction(v: bigint, prec: number): string {
  if (prec === 0) return String(v);
  const scale = 10n ** BigInt(prec);
  const digits = String(v % scale).padStart(prec, '0').replace(/0+$/, '');
  return digits === '' ? String(v / scale) : `${v / scale}.${digits}`;
}

/** intstr.IntOrString {type = 1, intVal = 2, strVal = 3}: the number or the string. */
function decodeIntOrString(bytes: Uint8Array): unknown {
  const f = smallFields(bytes);
  const type = intField(f, 1);
  if (type === 0n) return Number(BigInt.asIntN(32, intField(f, 2)));
  if (type === 1n) return utf8(bytesField(f, 3) ?? new Uint8Array(0));
  throw new ProtoWireError(`IntOrString has invalid type ${type}`);
}

/** resource.Quantity {string = 1}: the string; Go writes the zero Quantity as "0". */
function decodeQuantity(bytes: Uint8Array): unknown {
  const s = utf8(bytesField(smallFields(bytes), 1) ?? new Uint8Array(0));
  return s === '' ? '0' : s;
}

/**
 * A JSON document held as bytes (RawExtension, FieldsV1, apiextensions JSON) at field 1.
 * Empty is Go's null. A RawExtension may also carry a nested protobuf object.
 */
function decodeRawJson(bytes: Uint8Array, allowProtobuf: boolean, depth: number): unknown {
  const raw = bytesField(smallFields(bytes), 1);
  if (!raw || raw.length === 0) return undefined;
  if (allowProtobuf && kubeProtobufMagic.every((b, i) => raw[i] === b)) {
    return decodeUnchecked(raw, depth + 1).object;
  }
  try {
    return JSON.parse(utf8(raw)) as unknown;
  } catch (e) {
    throw new ProtoWireError(`embedded raw JSON is invalid: ${(e as Error).message}`);
  }
}

/** JSONSchemaPropsOrArray {schema = 1, jSONSchemas = 2}: the array when it has items, else the schema. */
function decodeSchemaOrArray(bytes: Uint8Array, depth: number): unknown {
  const s = schema();
  const items: unknown[] = [];
  let single: unknown;
  const r = new ProtoReader(bytes);
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire === WireType.bytes && (field === 1 || field === 2)) {
      const v = decodeMessage(s, `${APIEXT}.JSONSchemaProps`, r.bytes(), depth + 1);
      if (field === 1) single = v;
      else items.push(v);
    } else r.skip(wire);
  }
  return items.length > 0 ? items : single;
}

/** JSONSchemaPropsOrBool {allows = 1, schema = 2}: the schema when set, else the boolean. */
function decodeSchemaOrBool(bytes: Uint8Array, depth: number): unknown {
  let allows = false;
  let single: unknown;
  const r = new ProtoReader(bytes);
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WireType.varint) allows = r.varint() !== 0n;
    else if (field === 2 && wire === WireType.bytes) single = decodeMessage(schema(), `${APIEXT}.JSONSchemaProps`, r.bytes(), depth + 1);
    else r.skip(wire);
  }
  return single ?? allows;
}

/** JSONSchemaPropsOrStringArray {schema = 1, property = 2}: the strings when there are any, else the schema. */
function decodeSchemaOrStringArray(bytes: Uint8Array, depth: number): unknown {
  const property: string[] = [];
  let single: unknown;
  const r = new ProtoReader(bytes);
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WireType.bytes) single = decodeMessage(schema(), `${APIEXT}.JSONSchemaProps`, r.bytes(), depth + 1);
    else if (field === 2 && wire === WireType.bytes) property.push(utf8(r.bytes()));
    else r.skip(wire);
  }
  return property.length > 0 ? property : single;
}

/** Test hook: every message type the table references exists, or is decoded by hand. */
export function missingDescriptorReferences(): string[] {
  const s = schema();
  const missing = new Set<string>();
  for (const m of s.messages.values()) {
    for (const f of m.fields) {
      if (f.message !== undefined && !s.messages.has(f.message) && !specialDecoders.has(f.message)) missing.add(f.message);
    }
  }
  return [...missing].sort();
}
