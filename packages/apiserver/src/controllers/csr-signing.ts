/**
 * kube-controller-manager's CSR signing controllers (csrsigning-*), run by the
 * server because it holds the cluster CA: an approved
 * CertificateSigningRequest for one of the kubernetes.io signers, not failed
 * and not yet issued, gets its certificate in `status.certificate`, signed by
 * the CA clients already trust; one its signer's rules refuse gets a `Failed`
 * condition (reason `SignerValidationFailure`) instead. A certificate for
 * `kubernetes.io/kube-apiserver-client` authenticates to this server as its
 * CN and O, like any client certificate from the CA.
 */
import { StatusError, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { resourcePrefix } from '../registry/keys.js';
import { nowTimestamp } from '../registry/object-meta.js';
import type { WriteOptions } from '../registry/options.js';
import type { StoreWatch } from '../storage/mvcc-store.js';
import {
  kubernetesSigners,
  parseCertificateRequest,
  signCertificateRequest,
  signerRuleError,
  signingDurationMs,
} from '../tls/csr-signing.js';
import { CoalescedSync } from './coalesced-sync.js';
import { asObj } from '../registry/defaults/json-fields.js';

type Json = Record<string, unknown>;
type Condition = { type?: string; status?: string };

const writeOptions: WriteOptions = { dryRun: false, fieldValidation: 'Ignore', fieldManager: 'kube-controller-manager' };
const signers: ReadonlySet<string> = new Set(kubernetesSigners);

/** Whether the signer has work on `csr`: approved, not failed, no certificate yet, and one of ours (kube's handle()). */
function needsSigning(csr: KubeObject): boolean {
  const spec = asObj(csr.spec);
  const status = asObj(csr.status);
  if (!signers.has(String(spec.signerName ?? '')) || status.certificate) return false;
  const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Condition[];
  const isTrue = (type: string): boolean => conditions.some((c) => c.type === type && c.status === 'True');
  return isTrue('Approved') && !isTrue('Failed');
}

export class CsrSigningController {
  private watch?: StoreWatch;
  private readonly loop = new CoalescedSync('csr signing controller', () => this.sync());

  /** `ca` must hold the CA's key; `maximumDurationMs` is --cluster-signing-duration. */
  constructor(
    private readonly catalog: ResourceCatalog,
    private readonly ca: { certPem: string; keyPem: string },
    private readonly maximumDurationMs?: number,
  ) {}

  private store(): ResourceStore {
    const rs = this.catalog.lookup('certificates.k8s.io', 'v1', 'certificatesigningrequests');
    if (!rs) throw new Error('certificatesigningrequests are not served');
    return rs;
  }

  start(): void {
    const rs = this.store();
    this.watch = rs.mvcc.watch(resourcePrefix(rs.location), rs.mvcc.revision, () => this.loop.schedule());
    this.loop.schedule();
  }

  stop(): Promise<void> {
    this.watch?.stop();
    return this.loop.stop();
  }

  private async sync(): Promise<boolean> {
    const rs = this.store();
    let failed = false;
    for (const { value: csr } of rs.mvcc.list(resourcePrefix(rs.location)).items) {
      if (!needsSigning(csr)) continue;
      if (this.loop.isStopped) break;
      try {
        await this.handle(rs, csr);
      } catch (e) {
        if (e instanceof StatusError && (e.code === 404 || e.code === 409)) continue;
        console.error(`csr signing controller: ${csr.metadata.name ?? ''}: ${(e as Error).message}`);
        failed = true;
      }
    }
    return failed;
  }

  private async handle(rs: ResourceStore, csr: KubeObject): Promise<void> {
    const spec = asObj(csr.spec);
    const status = asObj(csr.status);
    const usages = (Array.isArray(spec.usages) ? spec.usages : []).map(String);
    const request = await parseCertificateRequest(Buffer.from(String(spec.request ?? ''), 'base64'));
    const refused = signerRuleError(String(spec.signerName), request.parsed, usages);
    let next: Json;
    if (refused !== undefined) {
      const conditions = [...((status.conditions as Json[] | undefined) ?? [])];
      conditions.push({ type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: refused, lastUpdateTime: nowTimestamp() });
      next = { ...status, conditions };
    } else {
      const expiration = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : undefined;
      const pem = await signCertificateRequest(this.ca, request, usages, signingDurationMs(expiration, this.maximumDurationMs));
      next = { ...status, certificate: Buffer.from(pem).toString('base64') };
    }
    if (this.loop.isStopped) return;
    await rs.update('', csr.metadata.name ?? '', { ...structuredClone(csr), status: next } as KubeObject, writeOptions, 'status');
  }
}
