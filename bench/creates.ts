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

async function createsPerSecond(client: Client, tag: string, concurrency: number, durationMs: number): Promise<{ perSecond: number; ops: number }> {
  const r = await closedLoop(concurrency, { durationMs }, async (w, i) => {
    await client.ok('POST', path, configMap(`${tag}-${w}-${i}`));
  });
  return r;
}

/** `pids` are the servers' processes, for their CPU per create. */
export async function creates(
  targets: CreateTargets,
  opts: { rounds: number; concurrency: number; durationMs: number; pids: { memory: number; sqlite: number } },
): Promise<CreatesResult> {
  const result: CreatesResult = { bare: [], memory: [], sqlite: [], cpuUs: { memory: [], sqlite: [] } };
  const order = ['bare', 'memory', 'sqlite'] as const;
  // Warm-up, the same number of creates for each target: TLS handshakes, the JIT's optimized code
  // for the whole create path, and for SQLite its write-ahead log grown to the size it keeps (its
  // first thousands of creates append to the file, so each fsync also commits the file's new
  // size). A warm-up by time (it was 300 ms) left the SQLite server, started just before, cold in
  // its first round, and under load (a few hundred creates in it) every round ran code not yet optimized.
  for (const name of order) await closedLoop(opts.concurrency, { total: warmUpCreates }, (w, i) => targets[name].ok('POST', path, configMap(`warm-${w}-${i}`)).then(() => undefined));
  for (let round = 0; round < opts.rounds; round++) {
    for (const name of order) {
      const pid = name === 'bare' ? undefined : opts.pids[name];
      const cpuBefore = pid === undefined ? 0 : cpuMsOf(pid);
      const r = await createsPerSecond(targets[name], `r${round}`, opts.concurrency, opts.durationMs);
      result[name].push(r.perSecond);
      if (name !== 'bare') result.cpuUs[name].push(((cpuMsOf(opts.pids[name]) - cpuBefore) * 1000) / r.ops);
    }
  }
  return result;
}
