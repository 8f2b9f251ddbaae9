/**
 * Where recorded events are written: events.k8s.io/v1 Events (client-go's
 * tools/events) or core/v1 Events (tools/record's shape: involvedObject,
 * count, first and last timestamps). Both create an event once and then patch
 * its repeat count.
 */
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type * as eventsv1 from 'kubernetes-types/events/v1.js';
import { CoreEvent, EventsV1Event, type Typed } from '../builtins.js';
import type { Client } from '../client/client.js';
import type { ObjectReference } from './reference.js';
import { microTime, rfc3339 } from '../time.js';

/**
 * Which Event API the recorder writes: `events.k8s.io/v1` (default, as
 * client-go's events package) or core `v1` (as the legacy record package).
 *
 * @example
 * ```ts
 * import { EventRecorder } from '@operant/runtime';
 *
 * new EventRecorder(client, { reportingController: 'example.com/bucket-controller', api: 'v1' });
 * ```
 */
export type EventApi = 'events.k8s.io/v1' | 'v1';

/**
 * An event's type: `Normal` for expected progress, `Warning` for trouble.
 *
 * @example
 * ```ts
 * import type { EventType } from '@operant/runtime';
 *
 * const type: EventType = 'Warning';
 * ```
 */
export type EventType = 'Normal' | 'Warning';

/** One event as the recorder keeps it, whichever API it is written to. */
export interface EventRecord {
  name: string;
  namespace: string;
  /** First occurrence, epoch milliseconds. */
  eventTimeMs: number;
  type: EventType;
  reason: string;
  action: string;
  note: string;
  regarding: ObjectReference;
  related?: ObjectReference;
  reportingController: string;
  reportingInstance: string;
}

/** The repeat count of an event and when it was last seen. */
export interface SeriesState {
  count: number;
  lastObservedMs: number;
}

/** Writes events to one API. */
export interface EventSink {
  create(event: EventRecord, series: SeriesState | undefined, signal: AbortSignal | undefined): Promise<void>;
  patchSeries(event: EventRecord, series: SeriesState, signal: AbortSignal | undefined): Promise<void>;
}

/** The sink for `api`. */
export function eventSink(client: Client, api: EventApi): EventSink {
  return api === 'v1' ? coreV1Sink(client) : eventsV1Sink(client);
}

function eventsV1Sink(client: Client): EventSink {
  const seriesOf = (s: SeriesState) => ({ count: s.count, lastObservedTime: microTime(s.lastObservedMs) });
  return {
    async create(e, series, signal) {
      const body: Typed<eventsv1.Event> = {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: e.name, namespace: e.namespace },
        eventTime: microTime(e.eventTimeMs),
        reportingController: e.reportingController,
        reportingInstance: e.reportingInstance,
        action: e.action,
        reason: e.reason,
        regarding: e.regarding,
        note: e.note,
        type: e.type,
      };
      if (e.related) body.related = e.related;
      if (series) body.series = seriesOf(series);
      await client.create(EventsV1Event, body, { namespace: e.namespace, signal });
    },
    async patchSeries(e, series, signal) {
      await client.patch(EventsV1Event, e.name, { series: seriesOf(series) }, { namespace: e.namespace, patchType: 'merge', signal });
    },
  };
}

function coreV1Sink(client: Client): EventSink {
  return {
    async create(e, series, signal) {
      const body: Typed<corev1.Event> = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: e.name, namespace: e.namespace },
        involvedObject: e.regarding,
        reason: e.reason,
        message: e.note,
        type: e.type,
        action: e.action,
        source: { component: e.reportingController },
        reportingComponent: e.reportingController,
        reportingInstance: e.reportingInstance,
        firstTimestamp: rfc3339(e.eventTimeMs),
        lastTimestamp: rfc3339(series?.lastObservedMs ?? e.eventTimeMs),
        count: series?.count ?? 1,
      };
      if (e.related) body.related = e.related;
      await client.create(CoreEvent, body, { namespace: e.namespace, signal });
    },
    async patchSeries(e, series, signal) {
      const patch = { count: series.count, lastTimestamp: rfc3339(series.lastObservedMs) };
      await client.patch(CoreEvent, e.name, patch, { namespace: e.namespace, patchType: 'merge', signal });
    },
  };
}
