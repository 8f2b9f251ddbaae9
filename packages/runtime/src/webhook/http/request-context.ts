/**
 * The context a handler gets for one request. Its abort signal is made only
 * when a handler asks for it, and only then does it listen for the client
 * going away: an AbortController and a `close` listener on the response cost
 * a few microseconds, and most handlers never look. Internal.
 */
import type { ServerResponse } from 'node:http';
import type { ObjectClient } from '../../client/interfaces.js';

import type { WebhookRequestContext } from '../contracts.js';
import type { LogMethods } from '../../logging/log.js';

const clientGone = 'the client closed the connection';

/** A {@link WebhookRequestContext} whose signal exists once read, already aborted if the request ended so. */
export class RequestContext implements WebhookRequestContext {
  private controller: AbortController | undefined;
  private reason: Error | undefined;
  /** The response's `close` listener, while one is attached (from the signal's first read until {@link finish}). */
  private onClose: (() => void) | undefined;
  /** The request was answered: the connection closing after that is no reason to abort. */
  private finished = false;

  constructor(
    readonly log: LogMethods,
    readonly client: ObjectClient | undefined,
    /** The response being served: its connection closing before the answer aborts the signal. */
    private readonly res?: ServerResponse,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
      else this.watchClose();
    }
    return this.controller.signal;
  }

  /** Aborts the signal, now or when it is first read; the first reason stays, as with AbortController. */
  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }

  /** The request was answered: stop watching its connection. */
  finish(): void {
    this.finished = true;
    if (this.onClose) this.res!.off('close', this.onClose);
    this.onClose = undefined;
  }

  /** Aborts when the client goes away before the answer; at once if it already has (the response is destroyed then). */
  private watchClose(): void {
    const res = this.res;
    if (!res || this.finished) return;
    if (res.destroyed) {
      this.abort(new Error(clientGone));
      return;
    }
    // Assigned, not declared as a named arrow: a keep-names transform (tsx) would name it with a defineProperty.
    this.onClose = () => this.abort(new Error(clientGone));
    res.once('close', this.onClose);
  }
}
