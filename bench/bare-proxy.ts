/**
 * A plain forwarding proxy, as any Node user would write one: a bare
 * node:http(s) server that forwards each request to the API server with the
 * upstream kubeconfig's credentials over a keep-alive agent and pipes the
 * answer back, with nothing else (no admission of its own, no classification,
 * no faults). The proxy bench measures it beside `operant chaos` in its own
 * process and beside env.faultProxy() in the bench's process. It costs more
 * per GET than either; the floor of any proxy process is raw-pipe.ts.
 *
 * As a process: node --conditions=source --import tsx bench/bare-proxy.ts KUBECONFIG plain|tls
 * prints `ready <url>` once it listens on 127.0.0.1 (any free port), and
 * forwards until killed. It serves with the process certificate
 * (processCertificates(), cached on disk: the same CA as the bench process's).
 */
import { Agent as HttpsAgent, createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { createServer as createHttpServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { loadKubeConfig, type ClientConfig } from '@operant/runtime';
import { processCertificates } from '@operant/testing';

/**
 * Starts the bare forwarder in front of `upstream`; serves HTTPS, or plain
 * HTTP with `plain`. Returns its server and a client configuration for it.
 */
export async function startBareProxy(upstream: ClientConfig, plain: boolean): Promise<{ server: Server; config: ClientConfig }> {
  const target = new URL(upstream.server);
  const tls = upstream.tls;
  const agent = new HttpsAgent({ keepAlive: true, ca: tls.ca, cert: tls.clientCertificate?.cert, key: tls.clientCertificate?.key, servername: tls.serverName });
  const credentials = await upstream.credentials.credentials();
  const serving = await processCertificates();
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const headers: OutgoingHttpHeaders = { ...req.headers };
    delete headers.connection;
    if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
    const out = httpsRequest({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(out);
  };
  const server: Server = plain ? createHttpServer(forward) : createHttpsServer({ cert: serving.cert, key: serving.key }, forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, config: bareProxyConfig(upstream, `${plain ? 'http' : 'https'}://127.0.0.1:${port}`, serving.caPem) };
}

/** A client configuration for a bare proxy at `url` in front of `upstream` (its clients send the upstream credentials). */
export function bareProxyConfig(upstream: ClientConfig, url: string, caPem: string): ClientConfig {
  return url.startsWith('http:')
    ? { ...upstream, server: url, tls: { insecureSkipTlsVerify: false } }
    : { ...upstream, server: url, tls: { ...upstream.tls, ca: caPem, serverName: undefined } };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const [kubeconfig, mode] = process.argv.slice(2);
  const { server } = await startBareProxy(await loadKubeConfig({ path: kubeconfig! }), mode === 'plain');
  process.stdout.write(`ready ${mode === 'plain' ? 'http' : 'https'}://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  process.once('SIGTERM', () => process.exit(0));
}
