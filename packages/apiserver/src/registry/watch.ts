/**
 * Watch over one resource: the initial state when asked for, then every later
 * change, with selectors applied the way kube's watch cache applies them (an
 * object leaving the selector arrives as DELETED, entering it as ADDED).
 */
import { StatusError, internalError, type KubeObject } from '@operant/apimachinery';
import { versionedJson } from '../storage/encoded-json.js';
import { StoreError, type StorageEvent, type Versioned } from '../storage/types.js';
import type { StoreWatch } from '../storage/mvcc-store.js';
import { listPrefix } from './keys.js';
import { compileListFilter } from './list-filter.js';
import type { WatchOptions } from './options.js';
import { parseResourceVersion, tooLargeResourceVersion, type ResourceStore } from './resource-store.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Receives watch events; `object` is a stored (frozen) object, a {@link StoredItem}, a bookmark or a Status. */
export type WatchSink = (type: WatchEventType, object: unknown) => void;

/**
 * An initial event's object served as stored and not parsed yet (read back from disk): `bytes()` are
 * what encoding it would give, so a JSON watch sends them without parsing it; `entry.value` parses it.
 */
export class StoredItem {
  constructor(readonly entry: Versioned) {}
  bytes(): Buffer {
    return versionedJson(this.entry);
  }
}

export interface ResourceWatch {
  stop(): void;
  /** Sends a BOOKMARK at the current revision (when the client allowed bookmarks). */
  bookmark(): void;
  /** True when the watch ended at once with an ERROR event. */
  ended: boolean;
}

/**
 * `flush` is called after each batch of events given to `sink` once the watch has started (a
 * fan-out round of the store, a conversion's answer, a bookmark, an error), so that the sink can
 * write a batch at once, in one write; not for the events given while `startWatch` runs.
 */
export function startWatch(rs: ResourceStore, namespace: string, opts: WatchOptions, sink: WatchSink, flush: () => void = () => {}): ResourceWatch {
  const filter = compileListFilter(rs.info, opts);
  const store = rs.mvcc;
  const prefix = listPrefix(rs.location, rs.info, namespace);
  const rvText = opts.resourceVersion ?? '';
  const sendInitial = opts.sendInitialEvents === true;
  const rv = rvText === '' ? 0 : parseResourceVersion(rvText);
  // Conversion may answer later (a conversion webhook): events wait in a chain to keep their order.
  let chain: Promise<void> | undefined;
  let stopped = false;
  const later = (deliver: () => Promise<void>): void => {
    const next = (chain ?? Promise.resolve())
      .then(deliver)
      .catch((err: unknown) => {
        if (!stopped) sink('ERROR', err instanceof StatusError ? err.status : internalError(String(err)).status);
      })
      .then(() => {
        if (!stopped) flush();
      });
    chain = next;
    void next.then(() => {
      if (chain === next) chain = undefined;
    });
  };
  const emit = (events: Array<[WatchEventType, KubeObject]>): void => {
    if (events.length === 0) return;
    const converted = rs.toExternal(events.map((e) => e[1]));
    if (!chain && !(converted instanceof Promise)) {
      events.forEach((e, i) => sink(e[0], converted[i]));
      return;
    }
    later(async () => {
      const objs = await converted;
      if (!stopped) events.forEach((e, i) => sink(e[0], objs[i]));
    });
  };
  // Bookmarks carry the revision on disk: every event up to it has been delivered, matching or not.
  const bookmark = (annotations?: Record<string, string>): void => {
    // A watch from a revision beyond the current one gets no bookmark before it (kube's cacheWatcher
    // sends only events past the revision it was asked for).
    if (store.durableRevision < from) return;
    const metadata: Record<string, unknown> = { resourceVersion: String(store.durableRevision) };
    if (annotations) metadata.annotations = annotations;
    const send = (): void => sink('BOOKMARK', { kind: rs.info.kind, apiVersion: rs.apiVersion, metadata });
    if (chain) later(async () => send());
    else {
      send();
      if (started) flush();
    }
  };

  /** Set once startWatch has returned: the events given before are the initial ones. */
  let started = false;
  let from: number;
  // Without sendInitialEvents, a watch from "" or "0" starts with the current state (kube's legacy case);
  // sendInitialEvents=false starts at the current revision with none. The current revision is the one on
  // disk: a write still being flushed reaches the watch as an event once it is there.
  const current = Math.max(store.durableRevision, store.oldestRevision);
  // A watch-list from a revision the server has not reached (the handler waited for it): kube's watch
  // cache ends it with an ERROR event, the 504 Too large resource version.
  if (sendInitial && rv > store.revision) {
    sink('ERROR', tooLargeResourceVersion(rv, store.revision).status);
    return { stop: () => {}, bookmark: () => {}, ended: true };
  }
  if ((rv === 0 && opts.sendInitialEvents === undefined) || sendInitial) {
    const { items, revision } = store.list(prefix, current);
    const initial = items.filter((v) => filter.matchesStored(v));
    // Without a conversion, objects read back from disk go out unparsed.
    if (rs.servesAsStored) for (const v of initial) sink('ADDED', v.unparsed ? new StoredItem(v) : v.value);
    else emit(initial.map((v): [WatchEventType, KubeObject] => ['ADDED', v.value]));
    from = revision;
    // kube sends the bookmark that ends the initial events only to a client that allowed bookmarks.
    if (sendInitial && opts.allowWatchBookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
  } else if (rv === 0) {
    from = current;
  } else {
    from = rv;
  }

  // The events of the store's fan-out rounds: each goes to the sink as it comes when objects are
  // served as stored (a hundred watchers get each one in turn), else through the conversion.
  const asStored = rs.servesAsStored;
  const one = (type: WatchEventType, value: KubeObject): void => {
    if (asStored) sink(type, value);
    else emit([[type, value]]);
  };
  const deliver = (e: StorageEvent): void => {
    if (e.rev <= from) return;
    // Without selectors an event is sent as it is (one without its old value, not a create, is judged below).
    if (filter.empty && (e.type === 'ADDED' || e.prev !== undefined)) {
      one(e.type, e.value);
      return;
    }
    const now = filter.matches(e.value);
    const before = e.prev !== undefined && filter.matches(e.prev);
    const value = e.value;
    if (e.type === 'ADDED') {
      if (now) one('ADDED', value);
    } else if (e.type === 'DELETED') {
      if (before) one('DELETED', value);
    } else if (now && before) one('MODIFIED', value);
    else if (now) one('ADDED', value);
    // Leaving the selector: kube's watch cache sends the object as it was when it
    // last matched, at the event's resourceVersion (cacheWatcher.convertToWatchEvent).
    else if (before) one('DELETED', { ...e.prev!, metadata: { ...e.prev!.metadata, resourceVersion: String(e.rev) } });
  };

  let handle: StoreWatch;
  try {
    handle = store.watch(prefix, Math.min(from, store.revision), deliver, flush);
  } catch (e) {
    if (e instanceof StoreError && e.code === 'Expired') {
      const err = new StatusError(410, 'Expired', `too old resource version: ${rv} (${e.oldestRevision ?? 0})`);
      sink('ERROR', err.status);
      return { stop: () => {}, bookmark: () => {}, ended: true };
    }
    throw e;
  }
  started = true;
  return {
    stop: () => {
      stopped = true;
      handle.stop();
    },
    bookmark: () => {
      if (opts.allowWatchBookmarks) bookmark();
    },
    ended: false,
  };
}
