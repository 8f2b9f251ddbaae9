/**
 * The little DER (ASN.1 Distinguished Encoding Rules) that X.509 certificates
 * need: encoding the universal types used in a TBSCertificate, and walking the
 * top-level elements of an encoded SEQUENCE.
 */

/** Encodes one TLV element. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  const n = content.length;
  let header: number[];
  if (n < 0x80) header = [tag, n];
  else {
    const lenBytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) lenBytes.unshift(v & 0xff);
    header = [tag, 0x80 | lenBytes.length, ...lenBytes];
  }
  return Buffer.concat([Buffer.from(header), content]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => tlv(0x31, Buffer.concat(items));
export const octetString = (bytes: Uint8Array): Buffer => tlv(0x04, bytes);
export const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
export const ia5String = (text: string): Buffer => tlv(0x16, Buffer.from(text, 'ascii'));
export const boolean = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
/** Context-specific constructed `[n]` (EXPLICIT tagging). */
export const explicit = (n: number, content: Uint8Array): Buffer => tlv(0xa0 | n, content);
/** Context-specific primitive `[n]` (IMPLICIT tagging of a primitive type). */
export const implicitPrimitive = (n: number, content: Uint8Array): Buffer => tlv(0x80 | n, content);

/** A non-negative INTEGER from its big-endian magnitude (a leading zero is added when the top bit is set). */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const trimmed = magnitude.subarray(i);
  return tlv(0x02, trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInteger = (value: number): Buffer => unsignedInteger(Buffer.from([value]));

/** BIT STRING of whole bytes (no unused bits). */
export const bitString = (bytes: Uint8Array): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));

/**
 * A named-bit-list BIT STRING (e.g. KeyUsage) from bit numbers, where bit 0 is
 * the most significant bit of the first byte; trailing zero bits are dropped as DER requires.
 */
export function namedBits(bits: number[]): Buffer {
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const b of bits) bytes[b >> 3] |= 0x80 >> (b & 7);
  return tlv(0x03, Buffer.concat([Buffer.from([7 - (highest & 7)]), bytes]));
}

export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const base128: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) base128.unshift((v & 0x7f) | 0x80);
    out.push(...base128);
  }
  return tlv(0x06, Buffer.from(out));
}

/** X.509 Time: UTCTime through 2049, GeneralizedTime after (RFC 5280 4.1.2.5), to the second. */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  const year = date.getUTCFullYear();
  return year < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

/** One decoded element: its tag and the whole encoding (header included) and content. */
export interface Element {
  tag: number;
  encoded: Buffer;
  content: Buffer;
}

/** Reads the element at `offset`. */
export function readElement(buf: Buffer, offset = 0): Element {
  const tag = buf[offset];
  let len = buf[offset + 1];
  let headerLength = 2;
  if (len & 0x80) {
    const count = len & 0x7f;
    len = 0;
    for (let i = 0; i < count; i++) len = len * 256 + buf[offset + 2 + i];
    headerLength += count;
  }
  const end = offset + headerLength + len;
  if (end > buf.length) throw new Error('truncated DER');
  return { tag, encoded: buf.subarray(offset, end), content: buf.subarray(offset + headerLength, end) };
}

/** The elements inside a constructed element's content. */
export function children(content: Buffer): Element[] {
  const out: Element[] = [];
  for (let offset = 0; offset < content.length; ) {
    const e = readElement(content, offset);
    out.push(e);
    offset += e.encoded.length;
  }
  return out;
}
