/**
 * A loaded configuration: everything a client needs to reach and authenticate
 * to one API server, however it was found (kubeconfig files, inline text, the
 * in-cluster service account).
 */
import type { ClientCertificate, CredentialProvider } from './credentials.js';

/**
 * How to trust the server and which certificate to present.
 *
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 * import type { TlsConfig } from '@operant/runtime';
 *
 * const tls: TlsConfig = { ca: await readFile('ca.crt', 'utf8'), insecureSkipTlsVerify: false, serverName: 'kubernetes.default.svc' };
 * ```
 */
export interface TlsConfig {
  /** PEM of the CAs to trust; the system's roots when absent. */
  ca?: string;
  /** Accept any server certificate (kubeconfig `insecure-skip-tls-verify`). */
  insecureSkipTlsVerify: boolean;
  /** Name to verify the server certificate against (kubeconfig `tls-server-name`), instead of the URL's host. */
  serverName?: string;
  /** A client certificate from the kubeconfig (credential plugins may supply one per request instead). */
  clientCertificate?: ClientCertificate;
}

/**
 * Who to act as (kubeconfig `as`, `as-groups`, `as-uid`, `as-user-extra`), e.g. to
 * check what a less privileged user may do.
 *
 * @example
 * ```ts
 * import { Client, loadKubeConfig } from '@operant/runtime';
 *
 * const config = await loadKubeConfig();
 * const asJane = Client.fromConfig({ ...config, impersonate: { user: 'jane', groups: ['system:authenticated'] } });
 * ```
 */
export interface Impersonation {
  user?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/**
 * A configuration to build a {@link Client} from.
 *
 * @example
 * ```ts
 * import { Client, loadKubeConfig } from '@operant/runtime';
 *
 * const config = await loadKubeConfig();
 * console.log(config.server, config.namespace, config.credentials.description);
 * const client = Client.fromConfig(config);
 * ```
 */
export interface ClientConfig {
  /** Base URL of the API server, without a trailing slash: `https://127.0.0.1:6443`. */
  server: string;
  /** The default namespace: the context's, the service account's, or `default`. */
  namespace: string;
  tls: TlsConfig;
  credentials: CredentialProvider;
  impersonate?: Impersonation;
  /**
   * Reach the server through this Unix domain socket, in plain HTTP, instead
   * of over TCP to `server`'s host and port (what client-go and
   * controller-runtime do with a custom `rest.Config.Dial`): for a client
   * beside a server that also serves on a private socket, such as the
   * embedded server started with `privateSocket` (its `socketPath`). Every
   * request and watch goes there; `server` still gives the path prefix, the
   * Host header and the URLs in error messages. The socket has no TLS, so
   * `tls` is unused and a client certificate cannot be presented: the
   * credentials must be a bearer token (or basic auth). A function is asked
   * again for each new connection, so that a server started again on a new
   * socket is found there. Set in code only: no kubeconfig field sets it.
   *
   * @example
   * ```ts
   * import { Client, loadKubeConfig } from '@operant/runtime';
   *
   * // An embedded server started in this process with `{ port: 0, privateSocket: true }`.
   * declare const server: { kubeconfig: string; socketPath: string };
   * const config = await loadKubeConfig({ kubeconfigText: server.kubeconfig });
   * // The same identity and URLs, without a TLS handshake per connection.
   * const local = Client.fromConfig({ ...config, socketPath: () => server.socketPath });
   * ```
   */
  socketPath?: string | (() => string);
  /** Where it came from: the kubeconfig files (in merge order), or `in-cluster`. */
  source: { kind: 'kubeconfig' | 'in-cluster'; files: string[]; context?: string; cluster?: string; user?: string };
  /** Settings that were read but are not honoured (e.g. `proxy-url`), in words. */
  warnings: string[];
}
