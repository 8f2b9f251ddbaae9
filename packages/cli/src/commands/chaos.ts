/**
 * `operant chaos`: the fault proxy and a seeded schedule, for any operator
 * and any cluster. It writes the proxy's kubeconfig, prints `ready <url>`,
 * the seed and the schedule, then the timeline as faults open, hit requests
 * and close, and a summary when the schedule is over. The proxy then keeps
 * forwarding, without faults, until SIGINT or SIGTERM (or exits at once with
 * `--exit`), so the operator can settle and be checked. It serves HTTPS, or
 * with `--plain-http` plain HTTP on loopback.
 */
import { loadKubeConfig } from '@operant/runtime';
import { chaos, FaultProxy, formatRecord, type FaultRecord } from '@operant/testing';
import { parseDuration, parseFaults, parseListen, parseScope, parseSeed } from './chaos-flags.js';

export interface ChaosFlags {
  kubeconfig?: string;
  context?: string;
  listen: string;
  plainHttp?: boolean;
  seed?: string;
  duration: string;
  faults?: string;
  verbs?: string;
  resources?: string;
  namespaces?: string;
  meanGap?: string;
  writeKubeconfig: string;
  plan?: boolean;
  exit?: boolean;
}

export async function runChaos(flags: ChaosFlags): Promise<void> {
  const schedule = chaos({
    seed: parseSeed(flags.seed),
    duration: parseDuration(flags.duration),
    faults: parseFaults(flags.faults),
    scope: parseScope(flags),
    meanGapMs: flags.meanGap !== undefined ? parseDuration(flags.meanGap, '--mean-gap') : undefined,
  });
  const out = (line: string): void => void process.stdout.write(`${line}\n`);
  if (flags.plan) {
    out(schedule.describe());
    return;
  }
  const { host, port } = parseListen(flags.listen);
  const upstream = await loadKubeConfig({ ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}), ...(flags.context ? { context: flags.context } : {}) });
  let playStart: number | undefined;
  const proxy = await FaultProxy.start({
    upstream,
    host,
    port,
    plainHttp: flags.plainHttp === true,
    // Latency hits every request in its window: its start and end lines are enough.
    onRecord: (r: FaultRecord) => {
      if (playStart === undefined || (r.type === 'hit' && r.fault.kind === 'latency')) return;
      out(formatRecord({ ...r, at: Math.max(0, r.at - playStart) }));
    },
  }).catch((e: unknown) => {
    throw listenError(flags.listen, e);
  });
  try {
    await proxy.writeKubeconfig(flags.writeKubeconfig);
  } catch (e) {
    await proxy.stop();
    throw new Error(`--write-kubeconfig: ${(e as Error).message}`);
  }
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  out(`ready ${proxy.url}`);
  out(`kubeconfig ${flags.writeKubeconfig} (forwarding to ${upstream.server})`);
  out(schedule.describe());
  playStart = proxy.now();
  const report = await proxy.play(schedule, { signal: stop.signal, log: out });
  out(report.summary());
  if (!flags.exit && !stop.signal.aborted) {
    out('schedule over: forwarding without faults until interrupted (Ctrl-C)');
    await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
  }
  await proxy.stop();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

/** What a socket's listen failure means for `--listen`, as kubectl proxy says it (`listen tcp <addr>: bind: address already in use`); other errors as they are. */
const listenReasons: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EADDRNOTAVAIL: 'address not available on this machine',
  EACCES: 'permission denied (a port below 1024 needs privileges)',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved now',
};

function listenError(listen: string, e: unknown): unknown {
  const reason = listenReasons[(e as NodeJS.ErrnoException | undefined)?.code ?? ''];
  return reason === undefined ? e : new Error(`--listen ${listen}: ${reason}`);
}
