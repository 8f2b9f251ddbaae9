/**
 * Event names as client-go makes them: `<object name>.<hex nanoseconds>`.
 */

/**
 * Names events `<name>.<hex of the time in nanoseconds>`. Within one process
 * names never repeat: a time not later than the last one used is bumped by 1 ns.
 */
export class EventNamer {
  private last = 0n;

  name(objectName: string, epochMs: number): string {
    const wholeMs = Math.floor(epochMs);
    let ns = BigInt(wholeMs) * 1_000_000n + BigInt(Math.floor((epochMs - wholeMs) * 1_000_000));
    if (ns <= this.last) ns = this.last + 1n;
    this.last = ns;
    return `${objectName}.${ns.toString(16)}`;
  }
}
