/**
 * Event names as client-go makes them: `<object name>.<hex nanoseconds>`.
 */

/**
 * Nanoseconds past the millisecond, from the process's high-resolution
 * clock. Go's `UnixNano` has them; `Date.now()` has not.
 */
function subMillisecondNs(): bigint {
  return process.hrtime.bigint() % 1_000_000n;
}

/**
 * Names events `<name>.<hex of the time in nanoseconds>`. Within one process
 * names never repeat: a time not later than the last one used is bumped by 1 ns.
 * Across processes they rely, as client-go's do, on the nanoseconds: a time in
 * whole milliseconds (`Date.now()`) gets its sub-millisecond part from the
 * high-resolution clock. Without it, two processes recording about objects of
 * the same name within one millisecond (a Foo's Synced event and its
 * Deployment's ScalingReplicaSet, both `example-foo`) chose the same name,
 * and the second create was refused as AlreadyExists: that event was lost.
 */
export class EventNamer {
  private last = 0n;

  name(objectName: string, epochMs: number): string {
    const wholeMs = Math.floor(epochMs);
    const fraction = epochMs - wholeMs;
    let ns = BigInt(wholeMs) * 1_000_000n + (fraction > 0 ? BigInt(Math.floor(fraction * 1_000_000)) : subMillisecondNs());
    if (ns <= this.last) ns = this.last + 1n;
    this.last = ns;
    return `${objectName}.${ns.toString(16)}`;
  }
}
