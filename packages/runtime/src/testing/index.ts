/**
 * `@operant/runtime/testing`: fakes for unit tests of code built on the
 * runtime: a clock that moves only when told, and a ListerWatcher that serves
 * scripted lists and watch events to an informer.
 */
export { FakeClock } from '../workqueue/fake-clock.js';
export { FakeListerWatcher, type FakeListerWatcherOptions, type FakeCall } from '../cache/fake-lister-watcher.js';
