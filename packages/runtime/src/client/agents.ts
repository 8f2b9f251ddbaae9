/**
 * Keep-alive HTTP(S) agents carrying the config's TLS material. A client has
 * one agent per client certificate in use; a credential plugin that rotates its
 * certificate gets a new agent, and old ones are retired once several exist.
 * A client that reaches its server on a Unix domain socket has one plain-HTTP
 * agent (no TLS there, so no certificate to present).
 */
import { createHash } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { ClientCertificate, TlsConfig } from '../config/index.js';

/** Agents kept at once; past this, the oldest is destroyed (its watches end and are re-established by their owners). */
const maxAgents = 4;

/**
 * Hands out the agent for a client certificate (or none).
 *
 * @example
 * ```ts
 * import { AgentPool } from './agents.js';
 *
 * const agents = new AgentPool(new URL(client.config.server), client.config.tls);
 * const agent = agents.get(undefined); // the agent for requests without a client certificate
 * agents.destroy();
 * const onSocket = new AgentPool(new URL(client.config.server), client.config.tls, { unixSocket: true }); // plain HTTP
 * ```
 */
export class AgentPool {
  private readonly agents = new Map<string, HttpAgent>();
  private readonly secure: boolean;

  /** `unixSocket`: the requests go to a Unix domain socket, in plain HTTP whatever the URL's scheme. */
  constructor(
    server: URL,
    private readonly tls: TlsConfig,
    options: { unixSocket?: boolean } = {},
  ) {
    this.secure = server.protocol === 'https:' && !options.unixSocket;
  }

  get(certificate: ClientCertificate | undefined): HttpAgent {
    // Without TLS a certificate cannot be presented: one agent serves all.
    const cert = this.secure ? (certificate ?? this.tls.clientCertificate) : undefined;
    const key = cert ? createHash('sha256').update(cert.cert).update('\0').update(cert.key).digest('hex') : '';
    let agent = this.agents.get(key);
    if (agent) return agent;
    agent = this.create(cert);
    this.agents.set(key, agent);
    if (this.agents.size > maxAgents) {
      const [oldestKey, oldest] = this.agents.entries().next().value as [string, HttpAgent];
      this.agents.delete(oldestKey);
      oldest.destroy();
    }
    return agent;
  }

  private create(cert: ClientCertificate | undefined): HttpAgent {
    if (!this.secure) return new HttpAgent({ keepAlive: true });
    return new HttpsAgent({
      keepAlive: true,
      // One context for every connection of the agent: without it each new connection parses the CA, certificate and key again.
      secureContext: createSecureContext({ ca: this.tls.ca, cert: cert?.cert, key: cert?.key }),
      rejectUnauthorized: !this.tls.insecureSkipTlsVerify,
      servername: this.tls.serverName,
    });
  }

  /** Closes every connection, including open watches. */
  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
