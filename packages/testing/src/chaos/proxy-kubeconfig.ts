/**
 * The kubeconfig a fault proxy hands out: its own URL, its CA (none when it
 * serves plain HTTP on loopback), and the token it expects.
 */
import { stringify } from '../lazy-packages.js';

export function proxyKubeconfigText(options: { url: string; caPem: string | undefined; token: string; namespace: string }): string {
  const name = 'operant-chaos-proxy';
  const cluster =
    options.caPem === undefined
      ? // No TLS to verify: @kubernetes/client-node refuses an http server without this flag.
        { server: options.url, 'insecure-skip-tls-verify': true }
      : { server: options.url, 'certificate-authority-data': Buffer.from(options.caPem).toString('base64') };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: { token: options.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: options.namespace } }],
    'current-context': name,
  });
}
