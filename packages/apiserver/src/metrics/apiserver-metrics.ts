/**
 * kube-apiserver's core metric families, with 1.32's names, labels, help
 * texts and buckets (k8s.io/apiserver pkg/endpoints/metrics and
 * pkg/admission/metrics, k8s.io/apiserver pkg/storage/etcd3/metrics), in a
 * prom-client registry of their own (one per server, as tests run several in
 * one process):
 *
 * - `apiserver_request_total{verb,dry_run,group,version,resource,subresource,scope,component,code}`
 * - `apiserver_request_duration_seconds{verb,dry_run,group,version,resource,subresource,scope,component}`
 * - `apiserver_current_inflight_requests{request_kind}` (readOnly, mutating; watches are exempt)
 * - `apiserver_longrunning_requests{verb,group,version,resource,subresource,scope,component}` (watches)
 * - `apiserver_storage_objects{resource}`
 * - `apiserver_admission_webhook_admission_duration_seconds{name,type,operation,rejected}`
 * - `apiserver_validating_admission_policy_check_total` and `..._check_duration_seconds`
 *   `{policy,policy_binding,error_type,enforcement_action}` (k8s.io/apiserver
 *   admission/plugin/policy/validating/metrics)
 */
import { Counter, Gauge, Histogram, Registry } from './prom-client.js';
import { InflightWatermark } from './inflight-watermark.js';
import type { RequestLabel, RequestLabels } from './request-labels.js';

type LongRunningLabel = Exclude<RequestLabel, 'dry_run'>;

const requestDurationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const webhookDurationBuckets = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];
const policyCheckBuckets = [0.0000005, 0.001, 0.01, 0.1, 1.0];
type PolicyCheckLabel = 'enforcement_action' | 'error_type' | 'policy' | 'policy_binding';

/** Label names in name order, by the names as given (a request's labels come in one of a few orders). */
const namesInOrder = new Map<string, string[]>();

/** The labels in name order, as Go's Prometheus client writes them (prom-client keeps the order it is given). */
function byName<T extends Record<string, string>>(labels: T): T {
  const names = Object.keys(labels);
  const given = names.join('\u0000');
  let sorted = namesInOrder.get(given);
  if (!sorted) namesInOrder.set(given, (sorted = names.sort((a, b) => (a < b ? -1 : 1))));
  const out: Record<string, string> = {};
  for (const name of sorted) out[name] = labels[name]!;
  return out as T;
}

/** A request's label sets as the metrics take them, in name order. */
interface SortedRequestLabels {
  duration: RequestLabels;
  longRunning: Record<LongRunningLabel, string>;
  /** `apiserver_request_total`'s labels, by response code. */
  totalByCode: Map<number, Record<RequestLabel | 'code', string>>;
}

/** How many distinct request label sets are remembered before starting afresh. */
const maxRememberedLabels = 1024;

/** Counts the stored objects of each resource, labelled as kube labels them (`pods`, `deployments.apps`). */
export type StorageObjectCounter = () => Iterable<[resource: string, count: number]>;

/** How a request is served: counted against the in-flight limits, or long-running (a watch). */
export type RequestKind = 'readOnly' | 'mutating' | 'longRunning';

/** The server's metrics; `track` measures one request, `text` renders them all. */
export class ApiServerMetrics {
  readonly registry = new Registry();
  private readonly requestTotal: Counter<RequestLabel | 'code'>;
  private readonly requestDuration: Histogram<RequestLabel>;
  private readonly longRunning: Gauge<LongRunningLabel>;
  private readonly webhookDuration: Histogram<'name' | 'type' | 'operation' | 'rejected'>;
  private readonly policyCheck: Counter<PolicyCheckLabel>;
  private readonly policyCheckDuration: Histogram<PolicyCheckLabel>;
  private readonly inflight = { readOnly: new InflightWatermark(), mutating: new InflightWatermark() };

  constructor(countStorageObjects: StorageObjectCounter) {
    const registers = [this.registry];
    this.requestTotal = new Counter({
      name: 'apiserver_request_total',
      help: '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      buckets: requestDurationBuckets,
      registers,
    });
    const inflight = this.inflight;
    new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: '[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers,
      collect() {
        this.set({ request_kind: 'readOnly' }, inflight.readOnly.value());
        this.set({ request_kind: 'mutating' }, inflight.mutating.value());
      },
    });
    this.longRunning = new Gauge({
      name: 'apiserver_longrunning_requests',
      help: '[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      registers,
    });
    new Gauge({
      name: 'apiserver_storage_objects',
      help: '[STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      labelNames: ['resource'],
      registers,
      collect() {
        this.reset();
        for (const [resource, count] of countStorageObjects()) this.set({ resource }, count);
      },
    });
    this.webhookDuration = new Histogram({
      name: 'apiserver_admission_webhook_admission_duration_seconds',
      help: '[STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      labelNames: ['name', 'type', 'operation', 'rejected'],
      buckets: webhookDurationBuckets,
      registers,
    });
    this.policyCheck = new Counter({
      name: 'apiserver_validating_admission_policy_check_total',
      help: '[BETA] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
      labelNames: ['enforcement_action', 'error_type', 'policy', 'policy_binding'],
      registers,
    });
    this.policyCheckDuration = new Histogram({
      name: 'apiserver_validating_admission_policy_check_duration_seconds',
      help: '[BETA] Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
      labelNames: ['enforcement_action', 'error_type', 'policy', 'policy_binding'],
      buckets: policyCheckBuckets,
      registers,
    });
  }

  /** The Content-Type of {@link text}: Prometheus' text format 0.0.4. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text of every family. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * Starts measuring a request; the returned function ends it with the response's
   * status code. A long-running request is counted in `apiserver_longrunning_requests`
   * while it lasts, the others in the in-flight watermark of their kind.
   */
  track(labels: RequestLabels, kind: RequestKind, startedAt: bigint): (code: number) => void {
    const sorted = this.sortedLabels(labels);
    if (kind === 'longRunning') this.longRunning.inc(sorted.longRunning);
    else this.inflight[kind].begin();
    return (code) => {
      if (kind === 'longRunning') this.longRunning.dec(sorted.longRunning);
      else this.inflight[kind].end();
      let total = sorted.totalByCode.get(code);
      if (!total) sorted.totalByCode.set(code, (total = byName({ ...labels, code: String(code) })));
      this.requestTotal.inc(total);
      this.requestDuration.observe(sorted.duration, Number(process.hrtime.bigint() - startedAt) / 1e9);
    };
  }

  /** Each request's labels in name order, made once per distinct set of values (requests repeat a few dozen). */
  private readonly labelsByValues = new Map<string, SortedRequestLabels>();

  private sortedLabels(labels: RequestLabels): SortedRequestLabels {
    // The values in one fixed order identify the labels; NUL appears in no label value a request can give.
    const key = `${labels.verb}\u0000${labels.dry_run}\u0000${labels.group}\u0000${labels.version}\u0000${labels.resource}\u0000${labels.subresource}\u0000${labels.scope}\u0000${labels.component}`;
    let sorted = this.labelsByValues.get(key);
    if (!sorted) {
      const { dry_run: _dryRun, ...rest } = labels;
      sorted = { duration: byName({ ...labels }), longRunning: byName(rest), totalByCode: new Map() };
      // Non-resource paths go into `subresource`: bounded, as a client could send many.
      if (this.labelsByValues.size >= maxRememberedLabels) this.labelsByValues.clear();
      this.labelsByValues.set(key, sorted);
    }
    return sorted;
  }

  /**
   * Records what one ValidatingAdmissionPolicy decision led to (`allow` for an ignored error,
   * `deny`, `warn`, `audit`), as kube's Observe{Admission,Rejection,Warn,Audit} do.
   */
  observePolicyCheck(policy: string, binding: string, errorType: string, action: string, seconds: number): void {
    const labels = { enforcement_action: action, error_type: errorType, policy, policy_binding: binding };
    this.policyCheck.inc(labels);
    this.policyCheckDuration.observe(labels, seconds);
  }

  /** Records one admission webhook call; `type` is kube's step type, `admit` for mutating webhooks. */
  observeWebhook(name: string, type: 'admit' | 'validating', operation: string, rejected: boolean, seconds: number): void {
    this.webhookDuration.observe({ name, operation, rejected: String(rejected), type }, seconds);
  }
}
