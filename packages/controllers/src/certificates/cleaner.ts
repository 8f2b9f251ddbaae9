/**
 * The CSR cleaner (kube-controller-manager's `csrcleaner`): once at start and
 * then an hour of cluster time after each pass, every
 * CertificateSigningRequest that is done with is deleted, so that automated
 * requests do not pile up:
 *
 * - approved and issued, an hour after the Approved condition's lastUpdateTime;
 * - denied or failed, an hour after that condition's lastUpdateTime;
 * - pending (no conditions at all), a day after its creation;
 * - approved and issued with a certificate whose NotAfter has passed.
 *
 * An approved request that no signer has issued is left alone, as kube 1.32
 * leaves it.
 */
import { X509Certificate } from 'node:crypto';
import { isNotFound, type Clock, type Manager } from '@operant/runtime';
import { timeOf, wallClock } from '../clock.js';
import { CertificateSigningRequest, type CertificateSigningRequestObject } from '../kinds.js';
import { addPeriodicPass } from '../periodic.js';

/** Options of {@link addCsrCleaner}. */
export interface CsrCleanerOptions {
  /** Cluster time; default the wall clock. */
  clock?: Clock;
}

/** How long kube's cleaner waits between passes. */
export const csrCleanerPollingIntervalMs = 60 * 60_000;
const approvedExpirationMs = 60 * 60_000;
const deniedExpirationMs = 60 * 60_000;
const pendingExpirationMs = 24 * 60 * 60_000;

/**
 * Adds the CSR cleaner to a manager (it runs on the leader only).
 *
 * @example
 * ```ts
 * import { addCsrCleaner } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create();
 * addCsrCleaner(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addCsrCleaner(mgr: Manager, options: CsrCleanerOptions = {}): void {
  const clock = options.clock ?? wallClock;
  addPeriodicPass(mgr, { clock, periodMs: csrCleanerPollingIntervalMs, immediately: true, failure: 'Unable to list CSRs' }, () => clean(mgr, clock));
}

async function clean(mgr: Manager, clock: Clock): Promise<void> {
  const requests = (await mgr.client.list(CertificateSigningRequest, { unsafeDisableDeepCopy: true })).items;
  for (const csr of requests) {
    const reason = cleanupReason(csr, clock.now());
    if (reason === undefined) continue;
    const name = csr.metadata.name!;
    mgr.logger.info({ csr: name }, reason);
    try {
      await mgr.client.delete(CertificateSigningRequest, name);
    } catch (err) {
      if (!isNotFound(err)) mgr.logger.error({ err, csr: name }, 'Error while attempting to clean CSR');
    }
  }
}

/** Why `csr` is to go now, in kube's log words, or undefined to keep it. */
function cleanupReason(csr: CertificateSigningRequestObject, now: number): string | undefined {
  const conditions = csr.status?.conditions ?? [];
  const issued = (csr.status?.certificate ?? '') !== '';
  const olderThan = (time: string | undefined, ms: number): boolean => {
    const at = timeOf(time);
    return at !== undefined && now - at > ms;
  };
  const past = (type: string, ms: number): boolean => conditions.some((c) => c.type === type && olderThan(c.lastUpdateTime, ms));
  // In kube's order, which decides the log line when more than one holds.
  if (issued && past('Approved', approvedExpirationMs)) return 'Cleaning CSR as it is more than approvedExpiration duration old and approved.';
  if (past('Denied', deniedExpirationMs)) return 'Cleaning CSR as it is more than deniedExpiration duration old and denied.';
  if (past('Failed', deniedExpirationMs)) return 'Cleaning CSR as it is more than deniedExpiration duration old and failed.';
  if (conditions.length === 0 && olderThan(csr.metadata.creationTimestamp, pendingExpirationMs)) return 'Cleaning CSR as it is more than pendingExpiration duration old and unhandled.';
  if (issued && conditions.some((c) => c.type === 'Approved') && certificateExpired(csr.status!.certificate!, now)) return 'Cleaning CSR as the associated certificate is expired.';
  return undefined;
}

/** Whether the first certificate of a base64 PEM bundle has passed its NotAfter; false when it cannot be read. */
function certificateExpired(base64Pem: string, now: number): boolean {
  const pem = Buffer.from(base64Pem, 'base64').toString('latin1');
  if (!pem.includes('-----BEGIN ')) return false;
  try {
    const notAfter = Date.parse(new X509Certificate(pem).validTo);
    return Number.isFinite(notAfter) && now > notAfter;
  } catch {
    return false;
  }
}
