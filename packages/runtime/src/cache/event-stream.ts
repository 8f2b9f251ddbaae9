/**
 * A push-to-pull bridge: events pushed by the informer are buffered until the
 * consumer's `for await` asks for them. The buffer is unbounded (the informer
 * never waits for a consumer), so a consumer must keep up or stop iterating.
 */

/**
 * An async iterator fed by `push`, finished by `end` (buffered values are still
 * delivered) or by the consumer's `return` (they are dropped).
 *
 * @example
 * ```ts
 * import { EventStream } from './event-stream.js';
 *
 * const stream = new EventStream<string>();
 * stream.push('a');
 * stream.end();
 * for await (const v of stream) console.log(v); // 'a'
 * ```
 */
export class EventStream<E> implements AsyncIterableIterator<E> {
  private buffer: E[] = [];
  private head = 0;
  private waiter: ((result: IteratorResult<E>) => void) | undefined;
  private ended = false;

  /** @param onClose called once, when the stream ends for any reason. */
  constructor(private readonly onClose: () => void = () => {}) {}

  /** Queues a value (ignored once ended). */
  push(value: E): void {
    if (this.ended) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w({ value, done: false });
    } else {
      this.buffer.push(value);
    }
  }

  /** Ends the stream after the buffered values. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w({ value: undefined, done: true });
    }
    this.onClose();
  }

  /** How many values wait to be consumed. */
  get pending(): number {
    return this.buffer.length - this.head;
  }

  next(): Promise<IteratorResult<E>> {
    if (this.head < this.buffer.length) {
      const value = this.buffer[this.head++] as E;
      if (this.head > 1024 && this.head * 2 > this.buffer.length) {
        this.buffer = this.buffer.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    if (this.waiter) return Promise.reject(new Error('EventStream: next() called while a previous next() is pending'));
    return new Promise((resolve) => (this.waiter = resolve));
  }

  return(): Promise<IteratorResult<E>> {
    this.buffer = [];
    this.head = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
