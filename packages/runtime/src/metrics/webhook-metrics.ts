/**
 * The webhook server's {@link WebhookMetrics} hook as Prometheus metrics with
 * controller-runtime's names and labels:
 * `controller_runtime_webhook_latency_seconds{webhook}`,
 * `controller_runtime_webhook_requests_total{webhook,code}`,
 * `controller_runtime_webhook_requests_in_flight{webhook}`,
 * `controller_runtime_webhook_admission_responses_total{webhook,allowed,admission_code}`,
 * `controller_runtime_webhook_panics_total` and `controller_runtime_conversion_webhook_panics_total`.
 */
import { Counter, Gauge, Histogram, type Registry } from './prom-client.js';
import { PendingCounts } from './pending-counts.js';
import type { WebhookMetrics, WebhookReviewKind } from '../webhook/metrics.js';

/** Prometheus' (client_golang) default buckets, which controller-runtime's latency histogram uses. */
const defaultBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Records a webhook server's requests into a registry.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * import { ensureLocalCertificates, WebhookServer } from '@operant/runtime';
 * import { PrometheusWebhookMetrics } from '@operant/runtime/metrics';
 *
 * const registry = new Registry();
 * const { source } = await ensureLocalCertificates('.operant/webhook-certs');
 * const server = new WebhookServer({ certificates: source, metrics: new PrometheusWebhookMetrics(registry) });
 * // after a request: controller_runtime_webhook_requests_total{webhook="/mutate--v1-pod",code="200"} 1
 * ```
 */
export class PrometheusWebhookMetrics implements WebhookMetrics {
  private readonly latency: Histogram<'webhook'>;
  private readonly total: Counter<'webhook' | 'code'>;
  private readonly inFlight: Gauge<'webhook'>;
  private readonly admission: Counter<'webhook' | 'allowed' | 'admission_code'>;
  private readonly panics: Counter;
  private readonly conversionPanics: Counter;
  // Per-request counts are kept here and added to the metrics when they are read (their `collect`):
  // prom-client builds and looks up a label key on every call, several µs per review otherwise.
  private readonly pendingInFlight = new PendingCounts<{ webhook: string }>();
  private readonly pendingTotal = new PendingCounts<{ webhook: string; code: string }>();
  private readonly pendingAdmission = new PendingCounts<{ webhook: string; allowed: string; admission_code: string }>();
  /** Each path's series keys and labels, made once rather than per request. */
  private readonly series = new Map<string, PathSeries>();

  constructor(registry: Registry) {
    const registers = [registry];
    this.latency = new Histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'],
      buckets: defaultBuckets,
      registers,
    });
    this.total = new Counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
      registers,
      collect: () => this.pendingTotal.flush(this.total),
    });
    this.inFlight = new Gauge({
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'],
      registers,
      collect: () => this.pendingInFlight.flush(this.inFlight),
    });
    this.admission = new Counter({
      name: 'controller_runtime_webhook_admission_responses_total',
      help: 'Total number of admission responses by status code and allowed status.',
      labelNames: ['webhook', 'allowed', 'admission_code'],
      registers,
      collect: () => this.pendingAdmission.flush(this.admission),
    });
    this.pendingTotal.clearOnReset(this.total);
    this.pendingInFlight.clearOnReset(this.inFlight);
    this.pendingAdmission.clearOnReset(this.admission);
    this.panics = new Counter({ name: 'controller_runtime_webhook_panics_total', help: 'Total number of webhook panics', registers });
    this.conversionPanics = new Counter({
      name: 'controller_runtime_conversion_webhook_panics_total',
      help: 'Total number of conversion webhook panics',
      registers,
    });
    // As controller-runtime does, the panic counters exist from the start.
    this.panics.inc(0);
    this.conversionPanics.inc(0);
  }

  /** Makes the most likely series exist at zero, as controller-runtime's `InstrumentedHook` does. */
  registered(path: string): void {
    this.total.inc({ webhook: path, code: '200' }, 0);
    this.total.inc({ webhook: path, code: '500' }, 0);
    this.inFlight.set({ webhook: path }, 0);
  }

  requestStarted(path: string): void {
    const series = this.seriesOf(path);
    this.pendingInFlight.add(path, 1, series.labels);
  }

  requestFinished(path: string, code: number, seconds: number): void {
    const series = this.seriesOf(path);
    this.pendingInFlight.add(path, -1, series.labels);
    const total = series.byCode(code);
    this.pendingTotal.add(total.key, 1, total.labels);
    this.latency.observe(series.webhook, seconds);
  }

  admissionResponse(path: string, allowed: boolean, code: number): void {
    const admission = this.seriesOf(path).byAdmission(allowed, code);
    this.pendingAdmission.add(admission.key, 1, admission.labels);
  }

  private seriesOf(path: string): PathSeries {
    let series = this.series.get(path);
    if (!series) {
      series = new PathSeries(path);
      this.series.set(path, series);
    }
    return series;
  }

  panicked(kind: WebhookReviewKind): void {
    if (kind === 'conversion') this.conversionPanics.inc();
    else this.panics.inc();
  }
}

/** A series' key among the pending counts, and its labels (made only when first pending). */
interface SeriesKey<L> {
  readonly key: string;
  readonly labels: () => L;
}

/** The keys and labels of one path's series, by status code (and allowed, for admission answers). */
class PathSeries {
  /** The latency histogram's labels: one object, which prom-client only reads. */
  readonly webhook: { webhook: string };
  readonly labels: () => { webhook: string };
  private readonly codes = new Map<number, SeriesKey<{ webhook: string; code: string }>>();
  private readonly allowedCodes = new Map<number, SeriesKey<{ webhook: string; allowed: string; admission_code: string }>>();
  private readonly deniedCodes = new Map<number, SeriesKey<{ webhook: string; allowed: string; admission_code: string }>>();

  constructor(private readonly path: string) {
    this.webhook = { webhook: path };
    this.labels = () => ({ webhook: path });
  }

  byCode(code: number): SeriesKey<{ webhook: string; code: string }> {
    let entry = this.codes.get(code);
    if (!entry) {
      const path = this.path;
      entry = { key: `${code} ${path}`, labels: () => ({ webhook: path, code: String(code) }) };
      this.codes.set(code, entry);
    }
    return entry;
  }

  byAdmission(allowed: boolean, code: number): SeriesKey<{ webhook: string; allowed: string; admission_code: string }> {
    const codes = allowed ? this.allowedCodes : this.deniedCodes;
    // Keyed as the pending counts key them (`${code}`), so -0 and 0 stay one series.
    let entry = codes.get(code);
    if (!entry) {
      const path = this.path;
      entry = { key: `${allowed} ${code} ${path}`, labels: () => ({ webhook: path, allowed: String(allowed), admission_code: String(code) }) };
      codes.set(code, entry);
    }
    return entry;
  }
}
