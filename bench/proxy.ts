/**
 * The fault proxy's overhead when it injects nothing (issue 20, aim: at least
 * 0.8x direct): the same requests and watches through a fault proxy and
 * straight to the embedded server, interleaved round by round so that machine
 * noise falls on both alike. The proxy is measured twice:
 *
 * - in its own process, as `npx operant chaos` runs it in front of a cluster
 *   (the real CLI, with a schedule of no faults): the proxy's TLS and
 *   parsing run beside the server and the clients, on the other core;
 * - in this process (`env.faultProxy()`), as an operator's tests use it:
 *   server, proxy and clients share one thread, so a proxy that ends TLS
 *   and sends each request on over TLS again adds about as much work as the
 *   server's own transport. GETs are also compared with the floor of any such
 *   proxy in one process: a bare node:https server that forwards each request
 *   with a keep-alive agent and pipes the answer.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Agent, createServer, request, type Server } from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigMap, Client, loadKubeConfig, type ClientConfig } from '@operant/runtime';
import { TestEnv, processCertificates } from '@operant/testing';
import { cliMain, spawnReady, type ReadyProcess } from './processes.js';
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

/** What a round of GETs did: requests per second, and the CPU it cost per request in this process and in the proxy's (when it has one). */
interface Round {
  rate: number;
  cpuUsHere: number;
  cpuUsProxy: number;
}

/**
 * CPU time a process has used, ms, from /proc (Linux; USER_HZ is 100 on every
 * Linux build): how the proxy's own process is measured from outside.
 */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * GETs per second with `connections` loops for `ms`, and the CPU they cost
 * per GET: CPU time does not depend on how much of the cores other processes
 * take, so it is the figure that survives a shared, loaded machine.
 */
async function getRate(client: Client, namespace: string, connections: number, ms: number, proxyPid?: number): Promise<Round> {
  const end = performance.now() + ms;
  const here = process.cpuUsage();
  const proxyBefore = proxyPid !== undefined ? processCpuMs(proxyPid) : 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        await client.get(ConfigMap, 'probe', { namespace });
        done++;
      }
    }),
  );
  const used = process.cpuUsage(here);
  const proxyUs = proxyPid !== undefined ? (processCpuMs(proxyPid) - proxyBefore) * 1000 : 0;
  return { rate: done / (ms / 1000), cpuUsHere: (used.user + used.system) / done, cpuUsProxy: proxyUs / done };
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

/** `operant chaos` in front of `kubeconfig`, with a schedule of no faults (seed 1 has none in its first millisecond), forwarding until stopped. */
async function startCliProxy(kubeconfig: string, dir: string): Promise<{ process: ReadyProcess; config: ClientConfig }> {
  const written = join(dir, 'chaos-kubeconfig');
  const args = [cliMain, 'chaos', '--kubeconfig', kubeconfig, '--listen', '127.0.0.1:0', '--write-kubeconfig', written, '--seed', '1', '--duration', '1ms'];
  const child = await spawnReady(process.execPath, args);
  return { process: child, config: await loadKubeConfig({ path: written }) };
}

export async function proxySection(rounds: number, connections: number, log: Log): Promise<Row[]> {
  const env = await TestEnv.start();
  const proxy = await env.faultProxy();
  const viaProxy = Client.fromConfig(await proxy.clientConfig(), { qps: Infinity });
  const direct = Client.fromConfig(env.kubeconfig.config, { qps: Infinity });
  const bare = await startBareProxy(env.kubeconfig.config);
  const viaBare = Client.fromConfig(bare.config, { qps: Infinity });
  const cli = await startCliProxy(env.kubeconfig.path, dirname(env.kubeconfig.path));
  const viaCli = Client.fromConfig(cli.config, { qps: Infinity });
  try {
    const ns = await env.namespace();
    await env.client.create(ConfigMap, { metadata: { name: 'probe', namespace: ns.name }, data: { a: '1' } });

    log('proxy: GET latency through the fault proxy (no faults) and straight to the server');
    const proxied: number[] = [];
    const straight: number[] = [];
    const separate: number[] = [];
    for (let r = 0; r < Math.max(3, rounds); r++) {
      straight.push(await getLatency(direct, ns.name, 300));
      proxied.push(await getLatency(viaProxy, ns.name, 300));
      separate.push(await getLatency(viaCli, ns.name, 300));
    }

    log(`proxy: GETs/s with ${connections} connections, 2 s a round`);
    const proxiedRounds: Round[] = [];
    const straightRounds: Round[] = [];
    const bareRounds: Round[] = [];
    const separateRounds: Round[] = [];
    for (let r = 0; r < rounds; r++) {
      straightRounds.push(await getRate(direct, ns.name, connections, 2000));
      proxiedRounds.push(await getRate(viaProxy, ns.name, connections, 2000));
      bareRounds.push(await getRate(viaBare, ns.name, connections, 2000));
      separateRounds.push(await getRate(viaCli, ns.name, connections, 2000, cli.process.child.pid));
    }
    const rates = (rs: Round[]) => rs.map((x) => x.rate);
    const [straightRate, proxiedRate, bareRate, separateRate] = [straightRounds, proxiedRounds, bareRounds, separateRounds].map(rates) as [number[], number[], number[], number[]];
    const cpu = (rs: Round[]) => rs.map((x) => x.cpuUsHere);
    const separateTotal = separateRounds.map((x) => x.cpuUsHere + x.cpuUsProxy);
    // On two free cores the separate proxy's requests/s are bounded by the busier of the two processes.
    const separateCeiling = separateRounds.map((x) => 1e6 / Math.max(x.cpuUsHere, x.cpuUsProxy));
    const directCeiling = straightRounds.map((x) => 1e6 / x.cpuUsHere);

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
    const separateWatch: number[] = [];
    for (let r = 0; r < rounds; r++) {
      straightWatch.push(await replayRate(direct, ns.name, startRv, events));
      proxiedWatch.push(await replayRate(viaProxy, ns.name, startRv, events));
      separateWatch.push(await replayRate(viaCli, ns.name, startRv, events));
    }
    log(
      `  GET p50 ${fmt.ms(median(separate))} (own process) / ${fmt.ms(median(proxied))} (in process) vs ${fmt.ms(median(straight))}; ` +
        `GETs/s ${median(separateRate).toFixed(0)} / ${median(proxiedRate).toFixed(0)} vs ${median(straightRate).toFixed(0)} (bare proxy ${median(bareRate).toFixed(0)}); ` +
        `events/s ${median(separateWatch).toFixed(0)} / ${median(proxiedWatch).toFixed(0)} vs ${median(straightWatch).toFixed(0)}`,
    );
    log(
      `  CPU per GET: direct ${fmt.us(median(cpu(straightRounds)))}; fault proxy in process ${fmt.us(median(cpu(proxiedRounds)))} (bare ${fmt.us(median(cpu(bareRounds)))}); ` +
        `operant chaos ${fmt.us(median(cpu(separateRounds)))} here + ${fmt.us(median(separateRounds.map((x) => x.cpuUsProxy)))} in the proxy process`,
    );
    const aim = (baseline: number[]) => (v: number) => v / median(baseline) >= 0.8;
    return [
      row('CPU per GET through `operant chaos` (own process): client and server here + the proxy process', separateTotal, cpu(straightRounds), fmt.us, '(client and server, straight)'),
      row('  GETs/s two free cores would allow (the busier process bounds it)', separateCeiling, directCeiling, fmt.rate, '(straight: one process, one core)', '>= 0.8x', aim(directCeiling)),
      row('CPU per GET through env.faultProxy() (same process)', cpu(proxiedRounds), cpu(straightRounds), fmt.us, '(straight to the server)'),
      row('CPU per GET through env.faultProxy() (same process)', cpu(proxiedRounds), cpu(bareRounds), fmt.us, '(through a bare forwarding HTTPS proxy, same process)'),
      row('GET through `operant chaos` (own process), no faults, p50', separate, straight, fmt.ms, '(the same GET straight to the server)'),
      row(`GETs/s through \`operant chaos\` (own process), no faults, ${connections} connections`, separateRate, straightRate, fmt.rate, '(straight to the server)', '>= 0.8x', aim(straightRate)),
      row(`Watch events/s through \`operant chaos\` (own process), no faults (replay of ${events})`, separateWatch, straightWatch, fmt.rate, '(straight to the server)', '>= 0.8x', aim(straightWatch)),
      row('GET through env.faultProxy() (same process), no faults, p50', proxied, straight, fmt.ms, '(the same GET straight to the server)'),
      row(`GETs/s through env.faultProxy() (same process), no faults, ${connections} connections`, proxiedRate, straightRate, fmt.rate, '(straight to the server)', '>= 0.8x', aim(straightRate)),
      row(`GETs/s through env.faultProxy() (same process), no faults, ${connections} connections`, proxiedRate, bareRate, fmt.rate, '(through a bare forwarding HTTPS proxy, same process)'),
      row(`Watch events/s through env.faultProxy() (same process), no faults (replay of ${events})`, proxiedWatch, straightWatch, fmt.rate, '(straight to the server)', '>= 0.8x', aim(straightWatch)),
    ];
  } finally {
    viaCli.close();
    await cli.process.stop();
    viaProxy.close();
    viaBare.close();
    direct.close();
    bare.server.close();
    await env.stop();
  }
}
