/**
 * kube's QuotaMonitor for the kinds the resourcequota controller counts by
 * listing (custom resources, built-ins it does not watch): once a quota
 * limits `count/` of such a kind, a metadata-only informer watches it, and
 * an object of it that goes re-queues the quotas of its namespace, so the
 * deletion is credited at once rather than at the next sync period. Creates
 * need nothing: quota admission charged them.
 */
import type { Kind, KubeObject, Request, Source, SourceContext } from '@operant/runtime';
import { deletedObject, type HandlerRegistration, type SharedInformerFactory } from '@operant/runtime/cache';

export class QuotaCountMonitor implements Source {
  readonly description = 'quota count monitor';
  private context?: SourceContext;
  private readonly monitored = new Map<string, HandlerRegistration>();

  /** `quotasOf` names the quotas of a namespace, which a deletion there re-queues. */
  constructor(
    private readonly informers: SharedInformerFactory,
    private readonly quotasOf: (namespace: string) => Request[],
  ) {}

  start(context: SourceContext): void {
    this.context = context;
    context.signal.addEventListener('abort', () => {
      for (const registration of this.monitored.values()) registration.remove();
      this.monitored.clear();
    }, { once: true });
  }

  /** Nothing to wait for: kinds are added as quotas name them. */
  waitForSync(): Promise<boolean> {
    return Promise.resolve(true);
  }

  hasSynced(): boolean {
    return true;
  }

  /** Watches `kind` from now on, if it is not watched already (only once the controller runs). */
  monitor(kind: Kind): void {
    const key = `${kind.plural}.${kind.group}`;
    if (!this.context || this.context.signal.aborted || this.monitored.has(key)) return;
    const requeue = (obj: KubeObject): void => {
      for (const req of this.quotasOf(obj.metadata.namespace ?? '')) this.context?.queue.add(req);
    };
    const informer = this.informers.metadataInformerFor(kind);
    this.monitored.set(key, informer.addEventHandler({ delete: (obj) => requeue(deletedObject(obj)) }));
  }
}
