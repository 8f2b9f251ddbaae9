/**
 * kube's validatingadmissionpolicy-status-controller
 * (pkg/controller/validatingadmissionpolicystatus): each
 * ValidatingAdmissionPolicy whose generation is past its
 * `status.observedGeneration` is type-checked against the schemas of the
 * kinds it matches, and its status is applied with the controller's field
 * manager: `observedGeneration` and `typeChecking.expressionWarnings` (an
 * empty `typeChecking` when nothing was found). kube runs it in
 * kube-controller-manager; here it runs in the server, which holds the
 * schemas and the policies' CEL environment.
 */
import { isJsonObject, StatusError, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { resourcePrefix } from '../registry/keys.js';
import type { StoreWatch } from '../storage/mvcc-store.js';
import { loadCel } from '../cel-loader.js';
import { typeCheckPolicy, type TypeCheckResolver } from '../admission/policy/type-checking.js';
import { catalogTypeCheckResolver } from '../admission/policy/type-check-schemas.js';
import { CoalescedSync } from './coalesced-sync.js';

/** kube's ControllerName, the field manager of the status it applies. */
export const policyStatusFieldManager = 'validatingadmissionpolicy-status-controller';

export class ValidatingAdmissionPolicyStatusController {
  private watch?: StoreWatch;
  private readonly loop = new CoalescedSync('validatingadmissionpolicy status controller', () => this.sync());
  private readonly resolver: TypeCheckResolver;

  constructor(private readonly catalog: ResourceCatalog) {
    this.resolver = catalogTypeCheckResolver(catalog);
  }

  private store(): ResourceStore | undefined {
    return this.catalog.lookup('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies');
  }

  start(): void {
    const rs = this.store();
    if (!rs) return;
    this.watch = rs.mvcc.watch(resourcePrefix(rs.location), rs.mvcc.revision, () => this.loop.schedule());
    this.loop.schedule();
  }

  stop(): Promise<void> {
    this.watch?.stop();
    return this.loop.stop();
  }

  private async sync(): Promise<boolean> {
    const rs = this.store();
    if (!rs) return false;
    const stale = rs.mvcc
      .list(resourcePrefix(rs.location))
      .items.map((i) => i.value)
      .filter((p) => (p.metadata.generation ?? 0) > observedGeneration(p));
    if (stale.length === 0) return false;
    // CEL is loaded only once there is a policy to check (a server without policies never loads it).
    await loadCel();
    let failed = false;
    for (const policy of stale) {
      if (this.loop.isStopped) break;
      const name = policy.metadata.name ?? '';
      let warnings: ReturnType<typeof typeCheckPolicy> = [];
      try {
        warnings = typeCheckPolicy(policy, this.resolver);
      } catch (e) {
        // A check that cannot run (an unusual schema, a CEL library error) must not hold back the
        // policies after it; like a kind without a schema, this one is recorded as checked, unwarned.
        console.error(`validatingadmissionpolicy status controller: ${name}: type checking failed: ${String(e)}`);
      }
      const apply = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name },
        status: { observedGeneration: policy.metadata.generation, typeChecking: warnings.length > 0 ? { expressionWarnings: warnings } : {} },
      };
      try {
        await rs.patch('', name, 'application/apply-patch+yaml', Buffer.from(JSON.stringify(apply)), { dryRun: false, fieldValidation: 'Strict', fieldManager: policyStatusFieldManager, force: true }, 'status');
      } catch (e) {
        // Deleted meanwhile: nothing to do. Anything else is tried again.
        if (e instanceof StatusError && e.code === 404) continue;
        console.error(`validatingadmissionpolicy status controller: ${name}: ${String(e)}`);
        failed = true;
      }
    }
    return failed;
  }
}

function observedGeneration(policy: KubeObject): number {
  const status = isJsonObject(policy.status) ? policy.status : {};
  return typeof status.observedGeneration === 'number' ? status.observedGeneration : 0;
}
