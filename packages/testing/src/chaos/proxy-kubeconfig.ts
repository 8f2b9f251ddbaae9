/** The kubeconfig a fault proxy hands out: its own URL and CA, and the token it expects. */
import { stringify } from 'yaml';

export function proxyKubeconfigText(options: { url: string; caPem: string; token: string; namespace: string }): string {
  const name = 'operant-chaos-proxy';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: options.url, 'certificate-authority-data': Buffer.from(options.caPem).toString('base64') } }],
    users: [{ name, user: { token: options.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: options.namespace } }],
    'current-context': name,
  });
}
