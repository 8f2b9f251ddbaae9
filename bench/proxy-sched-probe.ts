/**
 * Where the scheduler runs a proxy process and the process that drives it
 * (issue 20's proxy overhead): GETs from this process (client and server, as
 * the proxy bench's same-process routes) straight, through `operant chaos`
 * (HTTPS) and through the bare forwarder (bare-proxy.ts, HTTPS) in their own
 * processes, one route after another, several rounds, each round recorded by
 * `perf record` of the scheduler's tracepoints (system-wide; needs root or perf_event_paranoid <= -1).
 * For each route it prints, per GET: this process's main thread's context
 * switches (voluntary, involuntary) and CPU migrations (/proc's se.nr_migrations),
 * the proxy's likewise, and from the perf record: how often the proxy's main
 * thread was woken by this process's thread on the CPU that thread was on
 * (wake-affine), how often a wake-up of it or of this process preempted the
 * other, and how long each waited on the run queue after its wake-up.
 *
 *   node --conditions=source --import tsx bench/proxy-sched-probe.ts [ROUNDS] [SECONDS] [CLI_BIN]
 *
 * Without perf (or with PROBE_NO_PERF=1) it prints the /proc figures alone.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigMap, Client, type ClientConfig } from '@operant/runtime';
import { TestEnv } from '@operant/testing';
import { cliMain, type ReadyProcess } from './processes.js';
import { startBareProxyProcess, startCliProxy } from './proxy.js';
import { schedCpuMsOf, syscallsOf } from './proc.js';

const rounds = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 2);
const bin = process.argv[4] ?? cliMain;
const usePerf = !process.env.PROBE_NO_PERF && spawnSync('perf', ['--version']).status === 0;

/** A thread's scheduler counters (/proc/<pid>/task/<tid>/sched). */
function sched(pid: number, tid = pid): { voluntary: number; involuntary: number; migrations: number; runMs: number } {
  const text = readFileSync(`/proc/${pid}/task/${tid}/sched`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`^${name.replace('.', '\\.')}\\s+:\\s+([\\d.]+)`, 'm').exec(text)?.[1] ?? NaN);
  return { voluntary: field('nr_voluntary_switches'), involuntary: field('nr_involuntary_switches'), migrations: field('se.nr_migrations'), runMs: field('se.sum_exec_runtime') };
}

interface Totals {
  gets: number;
  here: ReturnType<typeof sched>;
  proxy: ReturnType<typeof sched>;
  cpuHereUs: number;
  cpuProxyUs: number;
  /** The proxy's read and write system calls (/proc/<pid>/io). */
  proxyReads: number;
  proxyWrites: number;
  perf: PerfFigures;
}

interface PerfFigures {
  /** Wake-ups of the proxy's main thread by this process's main thread. */
  proxyWokenByHere: number;
  /** Of those, on the CPU this process's thread was running on. */
  proxyWokenOnWakersCpu: number;
  /** Of those, while another CPU was idle (running the idle task). */
  proxyWokenOnWakersCpuBesideIdle: number;
  /** What the other CPUs ran at those wake-ups: this process's threads, the proxy's, or others (by command name). */
  otherCpuRan: Map<string, number>;
  /** Switches from this process's main thread, still runnable, to the proxy's: the proxy preempted it. */
  herePreemptedByProxy: number;
  /** Switches from this process's main thread, still runnable, to anything. */
  herePreempted: number;
  /** Wake-ups of this process's main thread by the proxy's. */
  hereWokenByProxy: number;
  hereWokenOnWakersCpu: number;
  /** Total ms this process's main thread / the proxy's waited runnable between a wake-up and running. */
  hereWaitMs: number;
  proxyWaitMs: number;
  hereWakeups: number;
  proxyWakeups: number;
}

const noPerf = (): PerfFigures => ({
  proxyWokenByHere: 0,
  proxyWokenOnWakersCpu: 0,
  proxyWokenOnWakersCpuBesideIdle: 0,
  otherCpuRan: new Map(),
  herePreemptedByProxy: 0,
  herePreempted: 0,
  hereWokenByProxy: 0,
  hereWokenOnWakersCpu: 0,
  hereWaitMs: 0,
  proxyWaitMs: 0,
  hereWakeups: 0,
  proxyWakeups: 0,
});

/** Reads a `perf sched record` file: wake-ups and switches between this process's main thread and the proxy's. */
function analyse(file: string, here: number, proxy: number | undefined): PerfFigures {
  const tasks = (pid: number | undefined): Set<number> => new Set(pid === undefined ? [] : readdirSync(`/proc/${pid}/task`).map(Number));
  const threadsOf = { here: tasks(here), proxy: tasks(proxy) };
  const out = spawnSync('perf', ['script', '-i', file, '-F', 'tid,cpu,time,event,trace'], { encoding: 'utf8', maxBuffer: 1 << 30 }).stdout;
  const f = noPerf();
  /** Who woke a thread (from sched_waking), until its sched_wakeup; and when it was last woken. */
  const waker = new Map<number, { tid: number; cpu: number }>();
  const wokenAt = new Map<number, number>();
  /** The thread each CPU runs (0: idle), from the switches seen so far. */
  const running = new Map<number, number>();
  const runningName = new Map<number, string>();
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(sched:\S+):\s+(.*)$/.exec(line);
    if (!m) continue;
    const [tid, cpu, time, event, trace] = [Number(m[1]), Number(m[2]), Number(m[3]), m[4]!, m[5]!];
    if (event === 'sched:sched_waking') {
      // Emitted by the waker, on its CPU; sched_wakeup then says the CPU chosen (and may be emitted on that CPU).
      const target = Number(/pid=(\d+)/.exec(trace)?.[1]);
      if (target === proxy || target === here) waker.set(target, { tid, cpu });
    } else if (event === 'sched:sched_wakeup') {
      const target = Number(/pid=(\d+)/.exec(trace)?.[1]);
      const targetCpu = Number(/target_cpu=(\d+)/.exec(trace)?.[1]);
      const by = waker.get(target);
      waker.delete(target);
      if (target === proxy) {
        f.proxyWakeups++;
        wokenAt.set(target, time);
        if (by !== undefined && by.tid === here) {
          f.proxyWokenByHere++;
          if (targetCpu === by.cpu) {
            f.proxyWokenOnWakersCpu++;
            if ([...running].some(([c, t]) => c !== targetCpu && t === 0)) f.proxyWokenOnWakersCpuBesideIdle++;
            for (const [c, name] of runningName) if (c !== targetCpu) f.otherCpuRan.set(name, (f.otherCpuRan.get(name) ?? 0) + 1);
          }
        }
      } else if (target === here) {
        f.hereWakeups++;
        wokenAt.set(target, time);
        if (by !== undefined && by.tid === proxy) {
          f.hereWokenByProxy++;
          if (targetCpu === by.cpu) f.hereWokenOnWakersCpu++;
        }
      }
    } else if (event === 'sched:sched_switch') {
      const s = /prev_pid=(\d+) .*?prev_state=(\S+) ==> next_comm=.*? next_pid=(\d+)/.exec(trace) ?? /:(\d+) \[\d+\] (\S+) ==> .*?:(\d+) \[\d+\]/.exec(trace);
      if (!s) continue;
      const [prev, state, next] = [Number(s[1]), s[2]!, Number(s[3])];
      running.set(cpu, next);
      const nextName = /next_comm=(.*?) next_pid=/.exec(trace)?.[1] ?? '?';
      runningName.set(cpu, next === 0 ? 'idle' : threadsOf.here.has(next) ? 'this process' : threadsOf.proxy.has(next) ? 'the proxy' : nextName);
      if (prev === here && (state === 'R' || state === 'R+')) {
        f.herePreempted++;
        if (next === proxy) f.herePreemptedByProxy++;
      }
      const woken = wokenAt.get(next);
      if (woken !== undefined) {
        if (next === here) f.hereWaitMs += (time - woken) * 1000;
        if (next === proxy) f.proxyWaitMs += (time - woken) * 1000;
        wokenAt.delete(next);
      }
    }
  }
  return f;
}

async function main(): Promise<void> {
  const env = await TestEnv.start();
  const ns = await env.namespace();
  await env.client.create(ConfigMap, { metadata: { name: 'probe', namespace: ns.name }, data: { a: '1' } });
  const dir = join(tmpdir(), `proxy-sched-${process.pid}`);
  const { process: chaos, config: chaosConfig } = await startCliProxy(env.kubeconfig.path, dir, false, bin);
  const { process: bare, config: bareConfig } = await startBareProxyProcess(env.kubeconfig.path, env.kubeconfig.config, false);
  const open = (config: ClientConfig): Client => Client.fromConfig(config, { qps: Infinity });
  const routes: Array<{ name: string; client: Client; proc?: ReadyProcess; totals: Totals[] }> = [
    { name: 'direct', client: open(env.kubeconfig.config), totals: [] },
    { name: 'chaos', client: open(chaosConfig), proc: chaos, totals: [] },
    { name: 'bare', client: open(bareConfig), proc: bare, totals: [] },
  ];
  const run = async (client: Client, ms: number): Promise<number> => {
    const end = performance.now() + ms;
    let done = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < end) {
          await client.get(ConfigMap, 'probe', { namespace: ns.name });
          done++;
        }
      }),
    );
    return done;
  };
  try {
    for (const r of routes) await run(r.client, 1500);
    for (let round = 0; round < rounds; round++) {
      for (const r of routes) {
        const file = join(dir, `${r.name}-${round}.data`);
        const perf = usePerf ? spawn('perf', ['record', '-e', 'sched:sched_waking', '-e', 'sched:sched_wakeup', '-e', 'sched:sched_switch', '-a', '-o', file], { stdio: 'ignore' }) : undefined;
        if (perf) await new Promise((resolve) => setTimeout(resolve, 300));
        const pid = r.proc?.child.pid;
        const hereBefore = sched(process.pid);
        const proxyBefore = pid !== undefined ? sched(pid) : undefined;
        const cpu = process.cpuUsage();
        const proxyCpu = pid !== undefined ? schedCpuMsOf(pid) : 0;
        const io = pid !== undefined ? syscallsOf(pid) : { reads: 0, writes: 0 };
        const gets = await run(r.client, seconds * 1000);
        const used = process.cpuUsage(cpu);
        const hereAfter = sched(process.pid);
        const proxyAfter = pid !== undefined ? sched(pid) : undefined;
        const proxyUs = pid !== undefined ? (schedCpuMsOf(pid) - proxyCpu) * 1000 : 0;
        const ioAfter = pid !== undefined ? syscallsOf(pid) : { reads: 0, writes: 0 };
        if (perf) {
          perf.kill('SIGINT');
          await once(perf, 'exit');
        }
        const diff = (a: ReturnType<typeof sched>, b: ReturnType<typeof sched>) => ({
          voluntary: b.voluntary - a.voluntary,
          involuntary: b.involuntary - a.involuntary,
          migrations: b.migrations - a.migrations,
          runMs: b.runMs - a.runMs,
        });
        r.totals.push({
          gets,
          here: diff(hereBefore, hereAfter),
          proxy: proxyBefore && proxyAfter ? diff(proxyBefore, proxyAfter) : { voluntary: 0, involuntary: 0, migrations: 0, runMs: 0 },
          cpuHereUs: used.user + used.system,
          cpuProxyUs: proxyUs,
          proxyReads: ioAfter.reads - io.reads,
          proxyWrites: ioAfter.writes - io.writes,
          perf: perf ? analyse(file, process.pid, pid) : noPerf(),
        });
        rmSync(file, { force: true });
      }
    }
    const per = (v: number, gets: number): string => (v / gets).toFixed(3);
    for (const r of routes) {
      for (const t of r.totals) {
        const g = t.gets;
        const p = t.perf;
        console.log(
          `${r.name.padEnd(6)} ${(g / seconds).toFixed(0).padStart(6)} GETs/s | CPU/GET here ${(t.cpuHereUs / g).toFixed(0)} us, proxy ${(t.cpuProxyUs / g).toFixed(0)} us` +
            ` | here: vol ${per(t.here.voluntary, g)} invol ${per(t.here.involuntary, g)} migr ${per(t.here.migrations, g)}` +
            (r.proc ? ` | proxy: vol ${per(t.proxy.voluntary, g)} invol ${per(t.proxy.involuntary, g)} migr ${per(t.proxy.migrations, g)} reads ${per(t.proxyReads, g)} writes ${per(t.proxyWrites, g)}` : '') +
            (usePerf
              ? ` | perf: here preempted ${per(p.herePreempted, g)} (by proxy ${per(p.herePreemptedByProxy, g)}), here wait ${((p.hereWaitMs / Math.max(1, p.hereWakeups)) * 1000).toFixed(0)} us/wakeup` +
                (r.proc
                  ? `, proxy woken by here ${per(p.proxyWokenByHere, g)} (on here's CPU ${per(p.proxyWokenOnWakersCpu, g)}, of them with the other CPU idle ${per(p.proxyWokenOnWakersCpuBesideIdle, g)}), here woken by proxy ${per(p.hereWokenByProxy, g)} (on proxy's CPU ${per(p.hereWokenOnWakersCpu, g)}), proxy wait ${((p.proxyWaitMs / Math.max(1, p.proxyWakeups)) * 1000).toFixed(0)} us/wakeup`
                  : '')
              : ''),
        );
        if (usePerf && r.proc) {
          const ran = [...p.otherCpuRan].sort((a, b) => b[1] - a[1]).slice(0, 6);
          console.log(`         the other CPU at those wake-ups: ${ran.map(([name, n]) => `${name} ${per(n, p.proxyWokenOnWakersCpu)}`).join(', ')}`);
        }
      }
    }
  } finally {
    for (const r of routes) r.client.close();
    await chaos.stop();
    await bare.stop();
    await env.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
