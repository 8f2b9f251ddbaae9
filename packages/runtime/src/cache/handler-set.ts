/**
 * Fan-out of cache events to registered handlers, with replay of the current
 * contents for a late subscriber. Delivery is synchronous: a handler added
 * between two events gets the replay and then exactly the later events, with
 * nothing missed or repeated.
 */
import type { KubeObject } from '@operant/apimachinery';
import type { EventHandler, HandlerRegistration, InformerEvent } from './events.js';

/** Called when a handler throws. */
export type HandlerErrorReporter = (err: unknown, event: InformerEvent<KubeObject>['type']) => void;

/**
 * The informer's handler list. Not exported from the package.
 */
export class HandlerSet<T extends KubeObject> {
  /** Replaced, never mutated, so a handler may add or remove handlers while being called. */
  private handlers: ReadonlyArray<EventHandler<T>> = [];

  constructor(private readonly onError: HandlerErrorReporter) {}

  get size(): number {
    return this.handlers.length;
  }

  /**
   * Registers `handler`, first delivering `current` to it as adds (in the
   * initial list). `synced` tells whether the informer has finished its first list.
   */
  add(handler: EventHandler<T>, current: readonly T[], synced: () => boolean): HandlerRegistration {
    for (const obj of current) this.call(handler, { type: 'add', object: obj, isInInitialList: true });
    this.handlers = [...this.handlers, handler];
    return {
      hasSynced: synced,
      remove: () => {
        this.handlers = this.handlers.filter((h) => h !== handler);
      },
    };
  }

  dispatch(event: InformerEvent<T>): void {
    for (const handler of this.handlers) this.call(handler, event);
  }

  private call(handler: EventHandler<T>, event: InformerEvent<T>): void {
    try {
      switch (event.type) {
        case 'add':
          handler.add?.(event.object, event.isInInitialList);
          break;
        case 'update':
          handler.update?.(event.oldObject, event.object);
          break;
        case 'delete':
          handler.delete?.(event.object);
          break;
      }
    } catch (err) {
      this.onError(err, event.type);
    }
  }
}
