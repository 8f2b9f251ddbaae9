/**
 * The environment's embedded server, replaced by a new one when it restarts,
 * and how the clients the environment runs in this process (the simulated
 * cluster, fault proxies) reach it: on its private Unix socket, in plain HTTP
 * with the admin token, asked for at each new connection (a restarted server
 * listens on a new socket). What users are handed (the kubeconfig, the admin
 * client) stays HTTPS, as a real server is reached.
 */
import type { RunningApiServer } from '@operant/apiserver';
import type { ClientConfig } from '@operant/runtime';

export class LiveServer {
  constructor(
    /** The server running now (the stopped one while a restart is under way). */
    public current: RunningApiServer,
  ) {}

  /** The current server's private socket (the environment starts every server with `privateSocket`). */
  readonly socketPath = (): string => this.current.socketPath!;

  /** `config` sent to the current server's private socket instead: no TLS handshake to this same process. */
  onSocket(config: ClientConfig): ClientConfig {
    return { ...config, socketPath: this.socketPath };
  }
}
