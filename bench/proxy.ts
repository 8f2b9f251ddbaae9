/**
 * The fault proxy's overhead when it injects nothing (issue 20, aim: at least
 * 0.8x direct): the same requests and watches through `env.faultProxy()` and
 * straight to the embedded server, interleaved round by round so that machine
 * noise falls on both alike. Proxy, server and clients share this process, as
 * they do in an operator's tests. A proxy that ends TLS and sends each request
 * on over TLS again costs about as much as the server's own transport does, so
 * GETs are also compared with the floor of any such proxy: a bare node:https
 * server that forwards each request with a keep-alive agent and pipes the answer.
 */
import { Agent, createServer, request, type Server } from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigMap, Client, type ClientConfig } from '@operant/runtime';
import { TestEnv, processCertificates } from '@operant/testing';
import { median } from './stats.js';
import { fmt, row, type Row } from './table.js';

type Log = (text: string) => void;

/** Median latency of `count` GETs of one ConfigMap. */
async function getLatency(client: Client, namespace: string, count: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await client.get(ConfigMap, 'probe', { namespace });
    times.push(performance.now() - t);
  }
  return median(times);
}

/** GETs per second with `connections` loops for `ms`. */
async function getRate(client: Client, namespace: string, connections: number, ms: number): Promise<number> {
  const end = performance.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        await client.get(ConfigMap, 'probe', { namespace });
        done++;
      }
    }),
  );
  return done / (ms / 1000);
}

/** Watch events per second: a watch from `fromRv` replays `expected` ADDED events. */
async function replayRate(client: Client, namespace: string, fromRv: string, expected: number): Promise<number> {
  const t = performance.now();
  const stop = new AbortController();
  let seen = 0;
  for await (const event of client.watch(ConfigMap, { namespace, resourceVersion: fromRv, signal: stop.signal })) {
    if (event.type === 'ADDED' && ++seen === expected) break;
  }
  stop.abort();
  return expected / ((performance.now() - t) / 1000);
}

/** The floor of a TLS-terminating proxy: forwards with the upstream kubeconfig's credentials, pipes the answer. */
async function startBareProxy(upstream: ClientConfig): Promise<{ server: Server; config: ClientConfig }> {
  const target = new URL(upstream.server);
  const tls = upstream.tls;
  const agent = new Agent({ keepAlive: true, ca: tls.ca, cert: tls.clientCertificate?.cert, key: tls.clientCertificate?.key, servername: tls.serverName });
  const credentials = await upstream.credentials.credentials();
  const serving = await processCertificates();
  const server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const headers: OutgoingHttpHeaders = { ...req.headers };
    delete headers.connection;
    if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
    const out = request({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, config: { ...upstream, server: `https://127.0.0.1:${port}`, tls: { ...tls, ca: serving.caPem, serverName: undefined } } };
}

export async function proxySection(rounds: number, connections: number, log: Log): Promise<Row[]> {
  const env = await TestEnv.start();
  const proxy = await env.faultProxy();
  const viaProxy = Client.fromConfig(await proxy.clientConfig(), { qps: Infinity });
  const direct = Client.fromConfig(env.kubeconfig.config, { qps: Infinity });
  const bare = await startBareProxy(env.kubeconfig.config);
  const viaBare = Client.fromConfig(bare.config, { qps: Infinity });
  try {
    const ns = await env.namespace();
    await env.client.create(ConfigMap, { metadata: { name: 'probe', namespace: ns.name }, data: { a: '1' } });

    log('proxy: GET latency through the fault proxy (no faults) and straight to the server');
    const proxied: number[] = [];
    const straight: number[] = [];
    for (let r = 0; r < Math.max(3, rounds); r++) {
      straight.push(await getLatency(direct, ns.name, 300));
      proxied.push(await getLatency(viaProxy, ns.name, 300));
    }

    log(`proxy: GETs/s with ${connections} connections, 2 s a round`);
    const proxiedRate: number[] = [];
    const straightRate: number[] = [];
    const bareRate: number[] = [];
    for (let r = 0; r < rounds; r++) {
      straightRate.push(await getRate(direct, ns.name, connections, 2000));
      proxiedRate.push(await getRate(viaProxy, ns.name, connections, 2000));
      bareRate.push(await getRate(viaBare, ns.name, connections, 2000));
    }

    const events = 5000;
    log(`proxy: a watch replaying ${events} events`);
    const startRv = (await env.client.list(ConfigMap, { namespace: ns.name })).metadata.resourceVersion ?? '0';
    for (let i = 0; i < events; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, events - i) }, (_, j) =>
          env.client.create(ConfigMap, { metadata: { name: `cm-${i + j}`, namespace: ns.name }, data: { value: 'x'.repeat(200) } }),
        ),
      );
    }
    const proxiedWatch: number[] = [];
    const straightWatch: number[] = [];
    for (let r = 0; r < rounds; r++) {
      straightWatch.push(await replayRate(direct, ns.name, startRv, events));
      proxiedWatch.push(await replayRate(viaProxy, ns.name, startRv, events));
    }
    log(`  GET p50 ${fmt.ms(median(proxied))} vs ${fmt.ms(median(straight))}; GETs/s ${median(proxiedRate).toFixed(0)} vs ${median(straightRate).toFixed(0)} (bare proxy ${median(bareRate).toFixed(0)}); events/s ${median(proxiedWatch).toFixed(0)} vs ${median(straightWatch).toFixed(0)}`);
    return [
      row('GET through the fault proxy, no faults, p50', proxied, straight, fmt.ms, '(the same GET straight to the server)'),
      row(`GETs/s through the fault proxy, no faults, ${connections} connections`, proxiedRate, straightRate, fmt.rate, '(straight to the server)', '>= 0.8x', (v) => v / median(straightRate) >= 0.8),
      row(`GETs/s through the fault proxy, no faults, ${connections} connections`, proxiedRate, bareRate, fmt.rate, '(through a bare forwarding HTTPS proxy)'),
      row(`Watch events/s through the fault proxy, no faults (replay of ${events})`, proxiedWatch, straightWatch, fmt.rate, '(straight to the server)', '>= 0.8x', (v) => v / median(straightWatch) >= 0.8),
    ];
  } finally {
    viaProxy.close();
    viaBare.close();
    direct.close();
    bare.server.close();
    await env.stop();
  }
}
