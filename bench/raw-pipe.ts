/**
 * The floor of any proxy in its own process, in Node: a raw byte pipe. Each
 * client connection gets one connection of its own to the API server, and
 * the bytes read on either go out on the other as they came: no HTTP parsing
 * at all, no headers rewritten (its clients send the upstream credentials
 * themselves, as the bare forwarder's do), one read and one write per chunk
 * each way. TLS is terminated and originated again, as a fault proxy must
 * (it has to see the requests): the client side is served over TLS with the
 * process certificate, or in plain TCP (`plain`, as `--plain-http`), and the
 * server side always goes over TLS with the upstream kubeconfig's settings.
 * No forwarder that does anything with the messages can cost less per GET.
 *
 * As a process: node --conditions=source --import tsx bench/raw-pipe.ts KUBECONFIG plain|tls
 * prints `ready <url>` once it listens on 127.0.0.1 (any free port), and
 * forwards until killed. Its clients use bare-proxy.ts's bareProxyConfig.
 */
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { loadKubeConfig, type ClientConfig } from '@operant/runtime';
import { processCertificates } from '@operant/testing';

/** Copies `from`'s bytes onto `to` as they come, pausing `from` while `to` is backed up. */
function oneWay(from: Socket, to: Socket): void {
  from.on('data', (chunk: Buffer) => {
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  });
  from.on('end', () => to.end());
  from.on('error', () => to.destroy());
  from.on('close', () => to.destroy());
}

/** Starts the raw pipe in front of `upstream` (an https server); serves TLS, or plain TCP with `plain`. */
export async function startRawPipe(upstream: ClientConfig, plain: boolean): Promise<{ server: Server; url: string }> {
  const target = new URL(upstream.server);
  if (target.protocol !== 'https:') throw new Error('raw-pipe: the upstream server must be https');
  const tls = upstream.tls;
  const upstreamOptions = {
    host: target.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(target.port || 443),
    ca: tls.ca,
    cert: tls.clientCertificate?.cert,
    key: tls.clientCertificate?.key,
    servername: tls.serverName ?? (/^[\d.:[\]]+$/.test(target.hostname) ? undefined : target.hostname),
    rejectUnauthorized: !tls.insecureSkipTlsVerify,
  };
  const accepted = (client: Socket): void => {
    client.setNoDelay(true);
    const server = tlsConnect(upstreamOptions);
    server.setNoDelay(true);
    oneWay(client, server);
    oneWay(server, client);
  };
  const serving = await processCertificates();
  const server: Server = plain ? createNetServer(accepted) : createTlsServer({ cert: serving.cert, key: serving.key }, accepted);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, url: `${plain ? 'http' : 'https'}://127.0.0.1:${port}` };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const [kubeconfig, mode] = process.argv.slice(2);
  const { url } = await startRawPipe(await loadKubeConfig({ path: kubeconfig! }), mode === 'plain');
  process.stdout.write(`ready ${url}\n`);
  process.once('SIGTERM', () => process.exit(0));
}
