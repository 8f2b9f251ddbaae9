/**
 * The protobuf FileDescriptorProtos a Go binary carries: gogo-protobuf
 * registers every `generated.proto` of the Kubernetes API types with its
 * descriptor gzipped into the binary (kubectl links them all). This scans a
 * binary for gzip streams and decodes those that are descriptors.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync, inflateRawSync } from 'node:zlib';
import { ProtoReader, WireType } from '../src/protobuf/decode.js';

// FieldDescriptorProto.Type numbers.
const typeNames: Record<number, string> = {
  1: 'double', 2: 'float', 3: 'int64', 4: 'uint64', 5: 'int32', 6: 'fixed64', 7: 'fixed32', 8: 'bool',
  9: 'string', 11: 'message', 12: 'bytes', 13: 'uint32', 14: 'enum', 15: 'sfixed32', 16: 'sfixed64',
  17: 'sint32', 18: 'sint64',
};
const labelRepeated = 3;
// gogoproto FieldOptions extensions.
const gogoNullable = 65001;
const gogoCustomName = 65004;

export interface RawField {
  name: string;
  number: number;
  repeated: boolean;
  type: string;
  typeName: string;
  nullable: boolean;
  goName: string;
}

export interface RawMessage {
  fullName: string;
  shortName: string;
  /** The top-level message it belongs to in the file (itself, or the parent of a map entry). */
  pkg: string;
  fields: RawField[];
  mapEntry: boolean;
}

export interface RawFile {
  name: string;
  pkg: string;
  messages: RawMessage[];
}

type Value = bigint | Uint8Array;

/** A message's fields in wire order, varints as bigint and everything else as bytes. */
function fields(bytes: Uint8Array): Array<[number, Value]> {
  const out: Array<[number, Value]> = [];
  const r = new ProtoReader(bytes);
  while (!r.done) {
    const { field, wire } = r.tag();
    if (wire === WireType.varint) out.push([field, r.varint()]);
    else if (wire === WireType.bytes) out.push([field, r.bytes()]);
    else if (wire === WireType.fixed32) out.push([field, r.fixed32()]);
    else if (wire === WireType.fixed64) out.push([field, r.fixed64()]);
    else r.skip(wire);
  }
  return out;
}

function str(v: Value): string {
  if (typeof v === 'bigint') throw new Error('expected a string field');
  return Buffer.from(v).toString('utf8');
}

function num(v: Value): number {
  if (typeof v !== 'bigint') throw new Error('expected a varint field');
  return Number(v);
}

function bytesOf(v: Value): Uint8Array {
  if (typeof v === 'bigint') throw new Error('expected a length-delimited field');
  return v;
}

/** FieldDescriptorProto: name = 1, number = 3, label = 4, type = 5, type_name = 6, options = 8. */
function parseField(bytes: Uint8Array): RawField {
  const f: RawField = { name: '', number: 0, repeated: false, type: '', typeName: '', nullable: true, goName: '' };
  for (const [n, v] of fields(bytes)) {
    if (n === 1) f.name = str(v);
    else if (n === 3) f.number = num(v);
    else if (n === 4) f.repeated = num(v) === labelRepeated;
    else if (n === 5) f.type = typeNames[num(v)] ?? `unsupported(${num(v)})`;
    else if (n === 6) f.typeName = str(v).replace(/^\./, '');
    else if (n === 8) {
      for (const [o, ov] of fields(bytesOf(v))) {
        if (o === gogoNullable) f.nullable = num(ov) !== 0;
        else if (o === gogoCustomName) f.goName = str(ov);
      }
    }
  }
  return f;
}

/** DescriptorProto: name = 1, field = 2, nested_type = 3, options = 7 (MessageOptions.map_entry = 7). */
function parseMessage(bytes: Uint8Array, prefix: string, pkg: string, out: RawMessage[]): void {
  const m: RawMessage = { fullName: '', shortName: '', pkg, fields: [], mapEntry: false };
  const nested: Uint8Array[] = [];
  for (const [n, v] of fields(bytes)) {
    if (n === 1) m.shortName = str(v);
    else if (n === 2) m.fields.push(parseField(bytesOf(v)));
    else if (n === 3) nested.push(bytesOf(v));
    else if (n === 7) m.mapEntry = fields(bytesOf(v)).some(([o, ov]) => o === 7 && num(ov) !== 0);
  }
  m.fullName = `${prefix}.${m.shortName}`;
  out.push(m);
  for (const b of nested) parseMessage(b, m.fullName, pkg, out);
}

/** FileDescriptorProto: name = 1, package = 2, message_type = 4. */
function parseFile(bytes: Uint8Array): RawFile {
  const file: RawFile = { name: '', pkg: '', messages: [] };
  const messages: Uint8Array[] = [];
  for (const [n, v] of fields(bytes)) {
    if (n === 1) file.name = str(v);
    else if (n === 2) file.pkg = str(v);
    else if (n === 4) messages.push(bytesOf(v));
  }
  for (const b of messages) parseMessage(b, file.pkg, file.pkg, file.messages);
  return file;
}

/**
 * The first gzip member at the start of `bytes`; both sizes are far above core/v1's.
 * gunzip would go on to a member that follows at once and join the two (the
 * certificates/v1 descriptor is followed by v1beta1's in kubectl): Go writes
 * members with a bare 10-byte header (no flags), whose deflate stream is
 * inflated alone, trailing bytes ignored.
 */
function gunzipMember(bytes: Buffer): Buffer {
  const flags = bytes[3];
  if (flags === 0) return inflateRawSync(bytes.subarray(10), { maxOutputLength: 16 << 20 });
  return gunzipSync(bytes, { maxOutputLength: 16 << 20 });
}

/** Every gzip stream in the binary that decodes as a FileDescriptorProto of a package `wanted` accepts. */
export function descriptorsIn(binary: string, wanted: (pkg: string) => boolean): RawFile[] {
  const data = readFileSync(binary);
  const gzipMagic = Buffer.from([0x1f, 0x8b, 0x08]);
  const files: RawFile[] = [];
  for (let i = data.indexOf(gzipMagic); i >= 0; i = data.indexOf(gzipMagic, i + 1)) {
    let inflated: Buffer;
    try {
      inflated = gunzipMember(data.subarray(i, i + (4 << 20)));
    } catch {
      continue;
    }
    let file: RawFile;
    try {
      file = parseFile(inflated);
    } catch {
      continue; // some other gzip payload
    }
    if (!file.name.endsWith('.proto')) continue;
    // Binaries built inside k8s.io/kubernetes name vendored files by their vendor path.
    file.name = file.name.replace(/^.*\/vendor\//, '');
    if (wanted(file.pkg)) files.push(file);
  }
  return files;
}

