/**
 * The bytes of watch events, made once for all the watchers of a fan-out
 * round. The watchers of one collection get the same events in a round, one
 * after another: the first to send an event makes its line, the first to send
 * a chunk of lines joins (and frames) it, and the watchers after them send
 * those same bytes. What is kept lives until the next turn of the event loop
 * at most.
 */
import type { KubeObject } from '@operant/apimachinery';
import { encodedJson } from '../storage/encoded-json.js';
import { allocBytes, concatBytes } from '../storage/large-buffers.js';
import type { WatchEventType } from '../registry/watch.js';

/** The constant parts of an event line around an object: `{"type":"ADDED","object":` ... `}\n`. */
export const eventHeads: Record<WatchEventType, Buffer> = Object.fromEntries(
  (['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const).map((t) => [t, Buffer.from(`{"type":"${t}","object":`)]),
) as Record<WatchEventType, Buffer>;
export const eventTail = Buffer.from('}\n');
const crlf = Buffer.from('\r\n');

/** Lines made in this turn, by stored object, with the type they were made for. */
let lines = new Map<KubeObject, { type: WatchEventType; line: Buffer }>();
/** The last chunk made of several parts (or framed), the parts it was made of, and whether it is framed. */
let lastParts: readonly Buffer[] = [];
let lastChunk: Buffer | undefined;
let lastFramed = false;
let forgetScheduled = false;

const forget = (): void => {
  forgetScheduled = false;
  lines = new Map();
  lastParts = [];
  lastChunk = undefined;
};
const forgetNextTurn = (): void => {
  if (forgetScheduled) return;
  forgetScheduled = true;
  setImmediate(forget);
};

/**
 * The event line of a stored (frozen) object, `{"type":...,"object":<its kept JSON>}\n`, as one
 * buffer: the one made for the same object and type earlier in this turn, if there was one.
 */
export function storedEventLine(type: WatchEventType, object: KubeObject): Buffer {
  const made = lines.get(object);
  if (made !== undefined && made.type === type) return made.line;
  const head = eventHeads[type];
  const json = encodedJson(object);
  const line = allocBytes(head.length + json.length + eventTail.length);
  head.copy(line, 0);
  json.copy(line, head.length);
  eventTail.copy(line, head.length + json.length);
  // Only a frozen object cannot change before the next watcher sends it (stored objects are).
  if (Object.isFrozen(object)) {
    lines.set(object, { type, line });
    forgetNextTurn();
  }
  return line;
}

/** True when `parts` are, one by one, the parts the last chunk was made of. */
function sameAsLast(parts: readonly Buffer[], framed: boolean): boolean {
  if (lastChunk === undefined || lastFramed !== framed || parts.length !== lastParts.length) return false;
  for (let i = 0; i < parts.length; i++) if (parts[i] !== lastParts[i]) return false;
  return true;
}

function remember(parts: readonly Buffer[], chunk: Buffer, framed: boolean): Buffer {
  lastParts = parts;
  lastChunk = chunk;
  lastFramed = framed;
  forgetNextTurn();
  return chunk;
}

/** `parts` (`bytes` of them) as one buffer: the one made for the same parts just before, if it was. */
export function joined(parts: readonly Buffer[], bytes: number): Buffer {
  if (parts.length === 1) return parts[0]!;
  if (sameAsLast(parts, false)) return lastChunk!;
  return remember(parts, concatBytes(parts, bytes), false);
}

/**
 * `parts` (`bytes` of them, more than none) as one HTTP/1.1 chunk, `<size in hex>\r\n<parts>\r\n`,
 * the framing Node's response writes around each write of a chunked body: the one made for the
 * same parts just before, if it was. One buffer goes to the socket in one write (TLS encrypts it
 * as it is, with no copy into one record first).
 */
export function framedChunk(parts: readonly Buffer[], bytes: number): Buffer {
  if (sameAsLast(parts, true)) return lastChunk!;
  const head = `${bytes.toString(16)}\r\n`;
  const chunk = allocBytes(head.length + bytes + crlf.length);
  let at = chunk.write(head, 0, 'latin1');
  for (const p of parts) at += p.copy(chunk, at);
  crlf.copy(chunk, at);
  return remember(parts, chunk, true);
}
