/**
 * The time limits of the requests being served, with one timer per distinct
 * budget instead of one per request. Requests given the same budget expire in
 * the order they arrived, so each budget keeps its requests in a list in that
 * order and one timer, armed for the first of them. Starting and finishing a
 * request links and unlinks it; a Node timer per request (created, inserted,
 * cleared) and a `Promise.race` against it cost several times that on every
 * review. Internal.
 */

/** What {@link Deadline.race} resolves with once the time is up, told apart from any result by identity. */
export const timedOut: unique symbol = Symbol('timed out');

/** One request's time limit; {@link Deadline.finish} it when the request is answered. */
export class Deadline {
  /** Neighbours in the list of its budget, in expiry order. */
  prev: Deadline | undefined;
  next: Deadline | undefined;
  /** The time is up (and it is no longer in its list). */
  expired = false;
  /** Finished or expired: no longer in its list. */
  unlinked = false;
  /** Settles the pending {@link race} with {@link timedOut}. */
  private settle: ((value: typeof timedOut) => void) | undefined;

  constructor(
    /** `performance.now()` at which the time is up. */
    readonly expiresAt: number,
    private readonly list: DeadlineList,
  ) {}

  /**
   * `work`'s result, or {@link timedOut} when the time is up first. A
   * rejection of `work` after that is ignored, as `Promise.race` ignores it.
   */
  race<T>(work: Promise<T>): Promise<T | typeof timedOut> {
    if (this.expired) {
      work.catch(ignore);
      return Promise.resolve(timedOut);
    }
    return new Promise<T | typeof timedOut>((resolve, reject) => {
      this.settle = resolve;
      work.then(resolve, reject);
    });
  }

  /** The request was answered: its time no longer runs. */
  finish(): void {
    this.settle = undefined;
    if (!this.unlinked) this.list.unlink(this);
  }

  /** Called by the list when the time is up. */
  expire(): void {
    this.expired = true;
    const settle = this.settle;
    this.settle = undefined;
    settle?.(timedOut);
  }
}

function ignore(): void {}

/** The running deadlines of one budget, earliest first, and the timer for the first. */
class DeadlineList {
  private head: Deadline | undefined;
  private tail: Deadline | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly budgetMs: number,
    private readonly onEmptyExpiry: (list: DeadlineList) => void,
  ) {}

  add(now: number): Deadline {
    const deadline = new Deadline(now + this.budgetMs, this);
    if (this.tail) {
      this.tail.next = deadline;
      deadline.prev = this.tail;
    } else this.head = deadline;
    this.tail = deadline;
    // Each later deadline of this budget expires no earlier than the first: a timer armed for an
    // earlier one fires, finds it gone and rearms, at most once per budget's length.
    if (this.timer === undefined) this.arm(deadline.expiresAt, now);
    return deadline;
  }

  unlink(deadline: Deadline): void {
    deadline.unlinked = true;
    const { prev, next } = deadline;
    if (prev) prev.next = next;
    else this.head = next;
    if (next) next.prev = prev;
    else this.tail = prev;
    deadline.prev = deadline.next = undefined;
  }

  /** Stops the timer and forgets every deadline (they can no longer expire). */
  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (let d = this.head; d; d = d.next) d.unlinked = true;
    this.head = this.tail = undefined;
  }

  private arm(at: number, now: number): void {
    this.timer = setTimeout(() => this.fire(), Math.max(1, Math.ceil(at - now)));
  }

  private fire(): void {
    this.timer = undefined;
    const now = performance.now();
    // Expired ones are unlinked before any runs its answer, which may start new requests.
    const due: Deadline[] = [];
    while (this.head && this.head.expiresAt <= now) {
      const d = this.head;
      this.unlink(d);
      due.push(d);
    }
    if (this.head) this.arm(this.head.expiresAt, now);
    else this.onEmptyExpiry(this);
    for (const d of due) d.expire();
  }
}

/**
 * The deadlines of one server's requests.
 *
 * A budget's list stays while its timer is armed, and goes when the timer fires
 * on an empty list: a server answering one request at a time arms a timer once
 * per budget's length, not once per request. The timers keep the process
 * running, as a timer per request would: {@link Deadlines.clear} them at stop.
 */
export class Deadlines {
  private readonly lists = new Map<number, DeadlineList>();
  private readonly dropList = (list: DeadlineList): void => {
    if (this.lists.get(list.budgetMs) === list) this.lists.delete(list.budgetMs);
  };

  /** A deadline `budgetMs` after `now` (`performance.now()` time). */
  start(budgetMs: number, now: number): Deadline {
    let list = this.lists.get(budgetMs);
    if (!list) {
      list = new DeadlineList(budgetMs, this.dropList);
      this.lists.set(budgetMs, list);
    }
    return list.add(now);
  }

  /** Stops every timer; deadlines still running never expire. */
  clear(): void {
    for (const list of this.lists.values()) list.clear();
    this.lists.clear();
  }
}
