/**
 * The proxy's side towards the API server: a keep-alive pool of connections
 * with the upstream kubeconfig's TLS settings (undici's, which costs a
 * fraction of node:http's client per request), and the credentials each
 * request goes on with. A request bearing the proxy's own token is sent with
 * the upstream kubeconfig's credentials (token, basic auth or client
 * certificate); one bearing other credentials is sent as it is (only over
 * HTTPS: a plain-HTTP proxy takes its own token alone); one bearing none is
 * refused.
 *
 * Given a private socket of a server in this process (`socketPath`), the pool
 * reaches it there in plain HTTP instead of over TLS to its URL: the same
 * requests with the same credentials, minus a TLS leg to its own process.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import type { ClientConfig, Credentials } from '@operant/runtime';
import { buildConnector, Pool } from 'undici';
import { hopByHop } from './respond.js';

/** What a request authenticates upstream with: its own Authorization header, or the upstream kubeconfig's credentials. */
export type Auth = { header: string } | { credentials: Credentials };

/** The server's answer as it starts: its status and headers, and its body streaming in. */
export interface UpstreamAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

export class Upstream {
  private readonly url: URL;
  /** What every request's options share, worked out once. */
  private readonly hostname: string;
  private readonly pathPrefix: string;
  private readonly pool: Pool;

  /**
   * `socketPath`: the upstream server's private Unix domain socket, asked
   * again for each new connection (a restarted server has a new one).
   */
  constructor(
    readonly config: ClientConfig,
    socketPath?: () => string,
  ) {
    this.url = new URL(config.server);
    this.hostname = this.url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.pathPrefix = this.url.pathname.replace(/\/+$/, '');
    const tls = config.tls;
    this.pool = new Pool(socketPath ? 'http://localhost' : this.url.origin, {
      connect: socketPath
        ? (options, callback) => buildConnector({ socketPath: socketPath() })(options, callback)
        : this.url.protocol === 'https:'
          ? {
              ca: tls.ca,
              cert: tls.clientCertificate?.cert,
              key: tls.clientCertificate?.key,
              rejectUnauthorized: !tls.insecureSkipTlsVerify,
              servername: tls.serverName,
            }
          : {},
      // A watch may be quiet for minutes, and a partitioned client holds its request: no timeouts of the pool's own.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** How a request bearing the proxy's token goes on: with the upstream kubeconfig's credentials. */
  async ownCredentials(): Promise<Auth> {
    return { credentials: await this.config.credentials.credentials() };
  }

  /** Sends the request upstream to `target` (its path and query) with `auth`; resolves with the answer as it starts. */
  async forward(req: IncomingMessage, target: string, body: Buffer, auth: Auth): Promise<UpstreamAnswer> {
    const headers: Record<string, string | string[]> = {};
    const raw = req.headers;
    for (const name in raw) {
      const value = raw[name];
      // The body is read whole already: an Expect: 100-continue was answered by the proxy's server.
      if (value !== undefined && !hopByHop.has(name) && name !== 'authorization' && name !== 'expect') headers[name] = value;
    }
    const method = req.method ?? 'GET';
    if (body.length > 0 || method === 'POST' || method === 'PUT' || method === 'PATCH') headers['content-length'] = String(body.length);
    if ('header' in auth) headers.authorization = auth.header;
    else if (auth.credentials.token) headers.authorization = `Bearer ${auth.credentials.token}`;
    else if (auth.credentials.basic) headers.authorization = `Basic ${Buffer.from(`${auth.credentials.basic.username}:${auth.credentials.basic.password}`).toString('base64')}`;
    const path = this.pathPrefix + target;
    const cert = 'credentials' in auth ? auth.credentials.clientCertificate : undefined;
    // A credential plugin's own certificate needs a connection of its own.
    if (cert) return this.forwardWithCertificate(method, path, headers, body, cert);
    const answer = await this.pool.request({ method: method as 'GET', path, headers, body: body.length > 0 ? body : null });
    return { statusCode: answer.statusCode, headers: answer.headers as IncomingHttpHeaders, body: answer.body };
  }

  private forwardWithCertificate(method: string, path: string, headers: Record<string, string | string[]>, body: Buffer, cert: { cert: string; key: string }): Promise<UpstreamAnswer> {
    const tls = this.config.tls;
    return new Promise((resolve, reject) => {
      const out = httpsRequest(
        { hostname: this.hostname, port: this.url.port || undefined, method, path, headers, agent: false, cert: cert.cert, key: cert.key, ca: tls.ca, rejectUnauthorized: !tls.insecureSkipTlsVerify, servername: tls.serverName },
        (res) => resolve({ statusCode: res.statusCode ?? 502, headers: res.headers, body: res }),
      );
      out.on('error', reject);
      out.end(body);
    });
  }

  /** Closes the connections (open watches end). */
  close(): void {
    void this.pool.destroy();
  }
}
