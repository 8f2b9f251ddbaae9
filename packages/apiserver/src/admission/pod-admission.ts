/**
 * The built-in admission plugins kube-apiserver runs on a new pod before its
 * mutating webhooks (so webhooks, a sidecar injector among them, see their
 * work): ServiceAccount, which names the account and mounts its token as the
 * projected `kube-api-access-<random>` volume in every container, and
 * DefaultTolerationSeconds, which lets the pod survive 300 s on a node that is
 * not ready or unreachable.
 */
import type { KubeObject } from '@operant/apimachinery';

type Json = Record<string, unknown>;

const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** k8s.io/apimachinery's rand.String alphabet: no vowels, no confusable digits. */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(n = 5): string {
  let out = '';
  for (let i = 0; i < n; i++) out += SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)];
  return out;
}

/** The projected volume kube 1.32 mounts for a pod's service account token. */
function tokenVolume(name: string): Json {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { items: [{ key: 'ca.crt', path: 'ca.crt' }], name: 'kube-root-ca.crt' } },
        { downwardAPI: { items: [{ fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' }, path: 'namespace' }] } },
      ],
    },
  };
}

function containersOf(spec: Json): Json[] {
  return [...((spec.initContainers as Json[] | undefined) ?? []), ...((spec.containers as Json[] | undefined) ?? [])];
}

/** ServiceAccount admission (plugin/pkg/admission/serviceaccount) for a pod being created. */
export function admitServiceAccount(pod: KubeObject): void {
  const spec = (pod.spec ??= {}) as Json;
  if (!spec.serviceAccountName) spec.serviceAccountName = (spec.serviceAccount as string | undefined) || 'default';
  spec.serviceAccount = spec.serviceAccountName;
  if (spec.automountServiceAccountToken === false) return;
  const containers = containersOf(spec);
  const mounted = (c: Json): boolean => ((c.volumeMounts as Json[] | undefined) ?? []).some((m) => m.mountPath === TOKEN_MOUNT_PATH);
  if (containers.every(mounted)) return;
  const volumes = ((spec.volumes as Json[] | undefined) ?? []).slice();
  const existing = volumes.find((v) => typeof v.name === 'string' && v.name.startsWith('kube-api-access-') && v.projected !== undefined);
  const name = (existing?.name as string | undefined) ?? `kube-api-access-${randomSuffix()}`;
  if (!existing) volumes.push(tokenVolume(name));
  spec.volumes = volumes;
  for (const c of containers) {
    if (mounted(c)) continue;
    c.volumeMounts = [...((c.volumeMounts as Json[] | undefined) ?? []), { mountPath: TOKEN_MOUNT_PATH, name, readOnly: true }];
  }
}

const TAINTS = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

/** DefaultTolerationSeconds admission: NoExecute tolerations of 300 s for the two node taints, unless the pod has its own. */
export function admitDefaultTolerationSeconds(pod: KubeObject): void {
  const spec = (pod.spec ??= {}) as Json;
  const tolerations = ((spec.tolerations as Json[] | undefined) ?? []).slice();
  const tolerates = (key: string): boolean =>
    tolerations.some((t) => (t.effect === undefined || t.effect === '' || t.effect === 'NoExecute') && (t.key === key || ((t.key === undefined || t.key === '') && t.operator === 'Exists')));
  for (const key of TAINTS) {
    if (!tolerates(key)) tolerations.push({ effect: 'NoExecute', key, operator: 'Exists', tolerationSeconds: 300 });
  }
  spec.tolerations = tolerations;
}
