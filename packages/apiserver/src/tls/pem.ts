/**
 * PEM blocks read as Go's encoding/pem.Decode reads them, so that what kube
 * accepts as a certificate request or a certificate chain is accepted here:
 * the first well-formed block anywhere in the data (text before it is
 * skipped, a malformed block is passed over), its type, whether it carries
 * headers, and what follows it.
 */

/** One decoded block. */
export interface PemBlock {
  /** The word(s) after `BEGIN`, e.g. `CERTIFICATE REQUEST`. */
  type: string;
  /** Whether `Key: value` header lines preceded the base64 body. */
  hasHeaders: boolean;
  bytes: Buffer;
}

const begin = '-----BEGIN ';
const end = '\n-----END ';
const dashes = '-----';

/** Go's getLine: the first line without its trailing spaces, tabs and CR, and the text after its newline. */
function getLine(data: string): [string, string] {
  const nl = data.indexOf('\n');
  const line = nl < 0 ? data : data.slice(0, nl);
  return [line.replace(/[ \t\r]+$/, ''), nl < 0 ? '' : data.slice(nl + 1)];
}

/** base64.StdEncoding over the body with line breaks, spaces and tabs removed; undefined when it does not decode. */
function strictBase64(body: string): Buffer | undefined {
  const text = body.replace(/[ \t\r\n]/g, '');
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  return Buffer.from(text, 'base64');
}

/**
 * The first PEM block in `data` and the rest after it, or undefined when
 * there is none. `data` holds bytes, read as latin1 so each byte is a char.
 */
export function decodePem(data: Buffer): { block: PemBlock; rest: Buffer } | undefined {
  let rest = data.toString('latin1');
  for (;;) {
    if (rest.startsWith(begin)) rest = rest.slice(begin.length);
    else {
      const at = rest.indexOf(`\n${begin}`);
      if (at < 0) return undefined;
      rest = rest.slice(at + begin.length + 1);
    }
    let typeLine: string;
    [typeLine, rest] = getLine(rest);
    if (!typeLine.endsWith(dashes)) continue;
    const type = typeLine.slice(0, -dashes.length);

    let hasHeaders = false;
    for (;;) {
      if (rest.length === 0) return undefined;
      const [line, next] = getLine(rest);
      if (!line.includes(':')) break;
      hasHeaders = true;
      rest = next;
    }

    // Without headers the END line may follow at once, with no newline before it.
    const immediate = !hasHeaders && rest.startsWith(end.slice(1));
    const endIndex = immediate ? 0 : rest.indexOf(end);
    if (endIndex < 0) continue;
    const trailerStart = immediate ? end.length - 1 : endIndex + end.length;
    const trailer = rest.slice(trailerStart, trailerStart + type.length + dashes.length);
    if (trailer !== `${type}${dashes}`) continue;
    if (getLine(rest.slice(trailerStart + trailer.length))[0] !== '') continue;
    const bytes = strictBase64(rest.slice(0, endIndex));
    if (!bytes) continue;
    const after = getLine(rest.slice(trailerStart))[1];
    return { block: { type, hasHeaders, bytes }, rest: Buffer.from(after, 'latin1') };
  }
}
