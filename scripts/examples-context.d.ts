// What a TSDoc example may take from its surroundings without declaring it
// (scripts/check-examples.mjs checks every example against this file): the
// values an operator's code has at hand. Each is typed, so what an example
// does with it is checked too. Anything else an example uses it imports, or
// declares itself (`declare const queue: WorkQueue<string>;`), so that a name
// that does not exist cannot hide here.
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { Client, ControllerLogger, Informer, Manager, SharedInformerFactory, Typed } from '@operant/runtime';

declare global {
  /** The operator's client (the manager's `mgr.client`, reading from the cache). */
  const client: Client;
  /** The operator's manager. */
  const mgr: Manager;
  /** Aborts when the operator stops (what `handleSignals()` returns). */
  const signal: AbortSignal;
  /** A reconcile's logger. */
  const log: ControllerLogger;
  /** The shared informers (the manager's `mgr.informers`). */
  const informers: SharedInformerFactory;
  /** A Pod informer (`informers.informerFor(Pod)`). */
  const informer: Informer<Typed<corev1.Pod>>;
  /** A Pod, as the server returns it. */
  const pod: Typed<corev1.Pod>;
}
