/**
 * Cold start: spawn to the `ready` line, for `operant server` in memory, on a
 * fresh data dir, and restarting on an existing one, against the Node floor
 * (a bare `node -e` HTTP server). Rounds interleave the four so that machine
 * noise falls on all of them alike.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { startNodeFloor, startOperant } from './processes.js';

export interface ColdStartResult {
  floor: number[];
  memory: number[];
  dataDirFirst: number[];
  dataDirRestart: number[];
  /** CPU time to ready, ms, of each start above (the machine's load inflates wall time far more). */
  cpu: { floor: number[]; memory: number[]; dataDirFirst: number[]; dataDirRestart: number[] };
  /**
   * The floor and the in-memory start again without NODE_EXTRA_CA_CERTS, when the
   * machine sets it: Node then parses that bundle at every start (about 50 ms here),
   * which a user's machine usually does not. Empty when it is not set.
   */
  withoutExtraCaCerts: { floor: number[]; memory: number[] };
  /** A data dir left behind, whose pki/ the baselines borrow. */
  dataDir: string;
}

export async function coldStart(workDir: string, rounds: number): Promise<ColdStartResult> {
  const r: ColdStartResult = { floor: [], memory: [], dataDirFirst: [], dataDirRestart: [], cpu: { floor: [], memory: [], dataDirFirst: [], dataDirRestart: [] }, withoutExtraCaCerts: { floor: [], memory: [] }, dataDir: '' };
  const plainEnv = process.env.NODE_EXTRA_CA_CERTS === undefined ? undefined : { ...process.env, NODE_EXTRA_CA_CERTS: undefined };
  // One unmeasured start of each, so the OS file cache is warm for all alike.
  await (await startNodeFloor()).stop();
  await (await startOperant(join(workDir, 'kc-warm'))).stop();
  for (let i = 0; i < rounds; i++) {
    const floor = await startNodeFloor();
    r.floor.push(floor.readyMs);
    r.cpu.floor.push(floor.readyCpuMs);
    await floor.stop();

    const mem = await startOperant(join(workDir, `kc-mem-${i}`));
    r.memory.push(mem.readyMs);
    r.cpu.memory.push(mem.readyCpuMs);
    await mem.stop();

    const dataDir = mkdtempSync(join(workDir, 'data-'));
    const first = await startOperant(join(workDir, `kc-dd-${i}`), dataDir);
    r.dataDirFirst.push(first.readyMs);
    r.cpu.dataDirFirst.push(first.readyCpuMs);
    await first.stop();

    const again = await startOperant(join(workDir, `kc-dd-${i}`), dataDir);
    r.dataDirRestart.push(again.readyMs);
    r.cpu.dataDirRestart.push(again.readyCpuMs);
    await again.stop();
    r.dataDir = dataDir;

    if (plainEnv) {
      const plainFloor = await startNodeFloor(plainEnv);
      r.withoutExtraCaCerts.floor.push(plainFloor.readyMs);
      await plainFloor.stop();
      const plainMem = await startOperant(join(workDir, `kc-plain-${i}`), undefined, plainEnv);
      r.withoutExtraCaCerts.memory.push(plainMem.readyMs);
      await plainMem.stop();
    }
  }
  return r;
}
