/**
 * Creates per second over HTTPS with keep-alive on several connections, for
 * `operant server` in memory and with SQLite, against a bare Node HTTPS server
 * answering the same JSON (the ceiling this client and machine allow).
 */
import { Client, closedLoop } from './client.js';
import { configMap } from './fixtures.js';
import { cpuMsOf } from './proc.js';

export interface CreateTargets {
  bare: Client;
  memory: Client;
  sqlite: Client;
}

export interface CreatesResult {
  bare: number[];
  memory: number[];
  sqlite: number[];
  /** Server CPU (user + system, all threads) per create, µs, by round: what the machine's load moves far less than rates. */
  cpuUs: { memory: number[]; sqlite: number[] };
}

const path = '/api/v1/namespaces/default/configmaps';
/** Creates each target gets before the rounds (see the warm-up). */
const warmUpCreates = 3000;
/** Creates each target gets, unmeasured, just before each of its rounds. */
const roundWarmUpCreates = 1000;

async function createsPerSecond(client: Client, tag: string, concurrency: number, durationMs: number): Promise<{ perSecond: number; ops: number }> {
  const r = await closedLoop(concurrency, { durationMs }, async (w, i) => {
    await client.ok('POST', path, configMap(`${tag}-${w}-${i}`));
  });
  return r;
}

/** `pids` are the servers' processes, for their CPU per create. */
export async function creates(
  targets: CreateTargets,
  opts: { rounds: number; concurrency: number; durationMs: number; pids: { memory: number; sqlite: number }; tag?: string },
): Promise<CreatesResult> {
  const result: CreatesResult = { bare: [], memory: [], sqlite: [], cpuUs: { memory: [], sqlite: [] } };
  const order = ['bare', 'memory', 'sqlite'] as const;
  // Warm-up, the same number of creates for each target: TLS handshakes, the JIT's optimized code
  // for the whole create path, and for SQLite its write-ahead log grown to the size it keeps (its
  // first thousands of creates append to the file, so each fsync also commits the file's new
  // size). A warm-up by time (it was 300 ms) left the SQLite server, started just before, cold in
  // its first round, and under load (a few hundred creates in it) every round ran code not yet optimized.
  const warmUp = (name: (typeof order)[number], tag: string, total: number) =>
    closedLoop(opts.concurrency, { total }, (w, i) => targets[name].ok('POST', path, configMap(`${opts.tag ?? ''}${tag}-${w}-${i}`)).then(() => undefined));
  for (const name of order) await warmUp(name, 'warm', warmUpCreates);
  for (let round = 0; round < opts.rounds; round++) {
    for (const name of order) {
      // Each server sat idle through the others' rounds, long enough for its idle reclaim
      // (memory/idle-reclaim.ts) to run a memory-reducing collection, which drops V8's optimized
      // code: the round would pay for recompiling the create path, a fixed cost that weighs more
      // on the server that makes fewer creates in the round (measured: 414 -> 193 us per SQLite
      // create with the reclaim off). A short burst first measures the sustained rate.
      await warmUp(name, `rewarm${round}`, roundWarmUpCreates);
      const pid = name === 'bare' ? undefined : opts.pids[name];
      const cpuBefore = pid === undefined ? 0 : cpuMsOf(pid);
      const r = await createsPerSecond(targets[name], `${opts.tag ?? ''}r${round}`, opts.concurrency, opts.durationMs);
      result[name].push(r.perSecond);
      if (name !== 'bare') result.cpuUs[name].push(((cpuMsOf(opts.pids[name]) - cpuBefore) * 1000) / r.ops);
    }
  }
  return result;
}
