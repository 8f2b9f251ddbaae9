/**
 * The event recorder: Events about objects, written in the background to
 * events.k8s.io/v1 (or core/v1), with repeats folded into series as
 * client-go's tools/events does.
 */
export { EventRecorder, type EventRecorderOptions } from './recorder.js';
export { objectReference, type ObjectReference } from './reference.js';
export type { EventApi, EventType } from './sink.js';
