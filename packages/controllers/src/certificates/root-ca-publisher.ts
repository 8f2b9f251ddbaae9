/**
 * The root CA publisher (kube-controller-manager's `root-ca-cert-publisher`):
 * every namespace holds a ConfigMap `kube-root-ca.crt` whose `ca.crt` is the
 * cluster's CA, which the service account admission mounts into each pod
 * (the projected `kube-api-access-*` volume) and which in-cluster clients
 * use to trust the API server. A missing one is created, and one whose data
 * or description annotation was changed is put back.
 */
import { ConfigMap, ignoreNotFound, isNotFound, Namespace, type Manager } from '@operant/runtime';

/** The ConfigMap each namespace gets. */
export const rootCaConfigMapName = 'kube-root-ca.crt';
const descriptionAnnotation = 'kubernetes.io/description';
const description =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

/** Options of {@link addRootCaPublisher}. */
export interface RootCaPublisherOptions {
  /** The CA bundle (PEM) to publish: kube-controller-manager's `--root-ca-file`, by default its kubeconfig's CA. */
  rootCa: string;
}

/**
 * Adds the root CA publisher to a manager.
 *
 * @example
 * ```ts
 * import { addRootCaPublisher } from '@operant/controllers';
 * import { handleSignals, loadKubeConfig, Manager } from '@operant/runtime';
 *
 * const config = await loadKubeConfig();
 * const mgr = await Manager.create({ kubeconfig: config });
 * addRootCaPublisher(mgr, { rootCa: config.tls.ca ?? '' });
 * await mgr.start(handleSignals());
 * ```
 */
export function addRootCaPublisher(mgr: Manager, options: RootCaPublisherOptions): void {
  const data = { 'ca.crt': options.rootCa };
  mgr
    .controller('root-ca-cert-publisher')
    .for(Namespace)
    .watches(ConfigMap, (cm) => (cm.metadata.name === rootCaConfigMapName && cm.metadata.namespace ? [{ namespace: '', name: cm.metadata.namespace }] : []))
    .reconcile(async (req) => {
      const namespace = await mgr.client.get(Namespace, req.name).catch(ignoreNotFound);
      if (!namespace) return;
      const cm = await mgr.client.get(ConfigMap, rootCaConfigMapName, { namespace: req.name }).catch(ignoreNotFound);
      if (!cm) {
        // Nothing can be created in a namespace that is going (kube's create would be refused, and it lets that be).
        if (namespace.metadata.deletionTimestamp || namespace.status?.phase === 'Terminating') return;
        try {
          await mgr.client.create(ConfigMap, { metadata: { name: rootCaConfigMapName, namespace: req.name, annotations: { [descriptionAnnotation]: description } }, data });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        return;
      }
      const dataKeys = Object.keys(cm.data ?? {});
      if (dataKeys.length === 1 && cm.data?.['ca.crt'] === options.rootCa && (cm.metadata.annotations?.[descriptionAnnotation] ?? '') !== '') return;
      await mgr.client.update(ConfigMap, {
        ...cm,
        metadata: { ...cm.metadata, annotations: { ...cm.metadata.annotations, [descriptionAnnotation]: description } },
        data,
      });
    });
}
