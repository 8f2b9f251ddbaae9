/**
 * Large buffers that give their memory back to the system when they are
 * collected.
 *
 * Node's buffers come from malloc. glibc serves a block of 128 KiB or more from
 * a mapping of its own at first, but once such a block is freed it raises that
 * threshold to the block's size (up to 32 MiB), and from then on serves blocks
 * of 1 MiB from its heap. Freed there, they stay resident for as long as any
 * small block lives above them: a burst of 1 MiB updates left ~100 MiB of free
 * but resident heap behind, long after the history had let go of the events
 * (issue 14). A resizable ArrayBuffer is allocated by V8 itself, from pages it
 * maps for that buffer alone and unmaps when the buffer is collected, whatever
 * glibc's threshold: its memory leaves with it.
 */

/** From this size on, a buffer gets pages of its own: glibc's own default mmap threshold. */
export const largeBufferBytes = 128 * 1024;

/** V8's ArrayBuffer constructor with its `maxByteLength` option (ES2024; in Node since 20). */
const ArrayBufferWithMax = ArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => ArrayBuffer;

/**
 * A buffer of `size` bytes, not initialized (a large one is zeroed: fresh pages),
 * from pages of its own when it is large (see above), else from Node's
 * allocator (not from the shared 8 KiB pool).
 */
export function allocBytes(size: number): Buffer {
  if (size < largeBufferBytes) return Buffer.allocUnsafeSlow(size);
  return Buffer.from(new ArrayBufferWithMax(size, { maxByteLength: size }), 0, size);
}

/** `parts` (`size` bytes of them) copied into one buffer, as Buffer.concat does, from {@link allocBytes}. */
export function concatBytes(parts: readonly Uint8Array[], size: number): Buffer {
  if (size < largeBufferBytes) return Buffer.concat(parts, size);
  const out = allocBytes(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
