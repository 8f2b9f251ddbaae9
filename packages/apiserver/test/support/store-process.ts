/**
 * The durable store in a child process (storage-child.ts), driven a command at
 * a time, so that a test can kill -9 it between any two commands.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';

const child = new URL('./storage-child.ts', import.meta.url).pathname;

/** What `state <fromRev>` answers (see storage-child.ts). */
export interface StoreState {
  revision: number;
  names: string[];
  replayed: string[];
  watched: string[];
  /** name -> `<data.blob>@<revision>` */
  blobs: Record<string, string>;
}

export class StoreProcess {
  /** Every store process started, so that a failed test can leave none running (see killAll). */
  private static readonly started: ChildProcess[] = [];
  private readonly lines: string[] = [];
  private waiting?: () => void;
  private readonly exited: Promise<unknown>;

  private constructor(private readonly process: ChildProcess) {
    this.exited = once(process, 'exit');
    createInterface({ input: process.stdout! }).on('line', (line) => {
      this.lines.push(line);
      this.waiting?.();
    });
  }

  /** Starts the store on `dataDir`; resolves with it and the revision it loaded. */
  static async start(dataDir: string): Promise<{ store: StoreProcess; loaded: number }> {
    const proc = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', child, dataDir], { stdio: ['pipe', 'pipe', 'inherit'] });
    StoreProcess.started.push(proc);
    const store = new StoreProcess(proc);
    return { store, loaded: numberAfter('loaded', await store.nextLine()) };
  }

  /** SIGKILL to every store process still running. */
  static killAll(): void {
    for (const p of StoreProcess.started) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  }

  /** Sends a write (create, update, delete, delete-compact) and resolves with its acknowledged revision. */
  async write(command: string): Promise<number> {
    return numberAfter('ack', await this.send(command));
  }

  async compact(times: number): Promise<number> {
    return numberAfter('compacted', await this.send(`compact ${times}`));
  }

  async state(fromRev: number): Promise<StoreState> {
    return JSON.parse(await this.send(`state ${fromRev}`)) as StoreState;
  }

  async kill9(): Promise<void> {
    this.process.kill('SIGKILL');
    await this.exited;
  }

  /** Closes the store cleanly (the end of its stdin). */
  async stop(): Promise<void> {
    this.process.stdin!.end();
    const [code] = (await this.exited) as [number | null];
    assert.equal(code, 0);
  }

  private async send(command: string): Promise<string> {
    this.process.stdin!.write(`${command}\n`);
    return this.nextLine();
  }

  private async nextLine(): Promise<string> {
    while (this.lines.length === 0) {
      if (this.process.exitCode !== null || this.process.signalCode !== null) throw new Error('the store process exited');
      await Promise.race([new Promise<void>((r) => (this.waiting = r)), this.exited]);
    }
    return this.lines.shift()!;
  }
}

function numberAfter(word: string, line: string): number {
  const m = new RegExp(`^${word} (\\d+)$`).exec(line);
  assert.ok(m, `expected "${word} <n>", got "${line}"`);
  return Number(m[1]);
}

/** Makes `dataDir` a data dir holding the SQL dump `sql` (a format older code wrote), private as the server makes it. */
export function dataDirFromDump(dataDir: string, sql: URL): void {
  mkdirSync(dataDir, { mode: 0o700 });
  const db = new Database(join(dataDir, 'state.db'));
  db.exec(readFileSync(sql, 'utf8'));
  db.close();
  chmodSync(join(dataDir, 'state.db'), 0o600);
}
