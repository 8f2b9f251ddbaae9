/**
 * The proxy's side towards the API server: one keep-alive agent with the
 * upstream kubeconfig's TLS settings, and the credentials each request goes
 * on with. A request bearing the proxy's own token is sent with the upstream
 * kubeconfig's credentials (token, basic auth or client certificate); one
 * bearing other credentials is sent as it is (only over HTTPS: a plain-HTTP
 * proxy takes its own token alone); one bearing none is refused.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ClientConfig, Credentials } from '@operant/runtime';
import { hopByHop } from './respond.js';

/** What a request authenticates upstream with: its own Authorization header, or the upstream kubeconfig's credentials. */
export type Auth = { header: string } | { credentials: Credentials };

export class Upstream {
  private readonly url: URL;
  /** What every request's options share, worked out once. */
  private readonly hostname: string;
  private readonly pathPrefix: string;
  private readonly agent: HttpAgent;

  constructor(readonly config: ClientConfig) {
    this.url = new URL(config.server);
    this.hostname = this.url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.pathPrefix = this.url.pathname.replace(/\/+$/, '');
    const tls = config.tls;
    this.agent =
      this.url.protocol === 'https:'
        ? new HttpsAgent({
            keepAlive: true,
            ca: tls.ca,
            cert: tls.clientCertificate?.cert,
            key: tls.clientCertificate?.key,
            rejectUnauthorized: !tls.insecureSkipTlsVerify,
            servername: tls.serverName,
          })
        : new HttpAgent({ keepAlive: true });
  }

  /** How a request bearing the proxy's token goes on: with the upstream kubeconfig's credentials. */
  async ownCredentials(): Promise<Auth> {
    return { credentials: await this.config.credentials.credentials() };
  }

  /** Sends the request upstream to `target` (its path and query) with `auth`; resolves with the answer as it starts. */
  forward(req: IncomingMessage, target: string, body: Buffer, auth: Auth): Promise<IncomingMessage> {
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !hopByHop.has(name) && name !== 'authorization') headers[name] = value;
    }
    if (body.length > 0 || req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') headers['content-length'] = body.length;
    if ('header' in auth) headers.authorization = auth.header;
    else if (auth.credentials.token) headers.authorization = `Bearer ${auth.credentials.token}`;
    else if (auth.credentials.basic) headers.authorization = `Basic ${Buffer.from(`${auth.credentials.basic.username}:${auth.credentials.basic.password}`).toString('base64')}`;
    const base = this.url;
    const send = base.protocol === 'https:' ? httpsRequest : httpRequest;
    const cert = 'credentials' in auth ? auth.credentials.clientCertificate : undefined;
    return new Promise((resolve, reject) => {
      const out = send(
        {
          protocol: base.protocol,
          hostname: this.hostname,
          port: base.port || undefined,
          method: req.method,
          path: this.pathPrefix + target,
          headers,
          // A credential plugin's own certificate needs a connection of its own.
          ...(cert ? { agent: false, cert: cert.cert, key: cert.key, ca: this.config.tls.ca, rejectUnauthorized: !this.config.tls.insecureSkipTlsVerify } : { agent: this.agent }),
        },
        resolve,
      );
      out.on('error', reject);
      out.end(body);
    });
  }

  /** Closes the connections (open watches end). */
  close(): void {
    this.agent.destroy();
  }
}
