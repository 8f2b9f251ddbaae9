/**
 * The context a handler gets for one request. Its abort signal is made only
 * when a handler asks for it: an AbortController costs a few microseconds,
 * and most handlers never look. Internal.
 */
import type { ObjectClient } from '../../client/interfaces.js';

import type { WebhookRequestContext } from '../contracts.js';
import type { LogMethods } from '../../logging/log.js';

/** A {@link WebhookRequestContext} whose signal exists once read, already aborted if the request ended so. */
export class RequestContext implements WebhookRequestContext {
  private controller: AbortController | undefined;
  private reason: Error | undefined;
  /** The connection's `close` listener: aborts because the client went away. */
  readonly abortOnClose: () => void;

  constructor(
    readonly log: LogMethods,
    readonly client: ObjectClient | undefined,
  ) {
    // Assigned, not declared as a named arrow: a keep-names transform (tsx) would name it with a
    // defineProperty per request.
    this.abortOnClose = () => this.abort(new Error('the client closed the connection'));
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Aborts the signal, now or when it is first read; the first reason stays, as with AbortController. */
  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
