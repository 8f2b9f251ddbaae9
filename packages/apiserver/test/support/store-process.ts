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

/** Spawns the store's node command line (`argv`, node's arguments): as is, or inside something (a namespace). */
export type SpawnStore = (argv: readonly string[]) => ChildProcess;

const spawnNode: SpawnStore = (argv) => spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'inherit'] });

export class StoreProcess {
  /** Every store process started, so that a failed test can leave none running (see killAll). */
  private static readonly started: ChildProcess[] = [];
  private readonly lines: string[] = [];
  private waiting?: () => void;
  private readonly exited: Promise<unknown>;
  private stderrText = '';

  private constructor(private readonly process: ChildProcess) {
    this.exited = once(process, 'exit');
    createInterface({ input: process.stdout! }).on('line', (line) => {
      this.lines.push(line);
      this.waiting?.();
    });
    process.stderr?.on('data', (d: Buffer) => (this.stderrText += d.toString()));
  }

  /** Starts the store on `dataDir` (spawned by `spawnStore`); resolves with it and the revision it loaded. */
  static async start(dataDir: string, spawnStore: SpawnStore = spawnNode): Promise<{ store: StoreProcess; loaded: number }> {
    const proc = spawnStore(['--conditions=source', '--import', 'tsx', child, dataDir]);
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

  /** What the process wrote to its stderr, when `spawnStore` gave it a pipe ('' when inherited). */
  get stderr(): string {
    return this.stderrText;
  }

  /** Sends any command of storage-child.ts and resolves with its one line of answer. */
  async send(command: string): Promise<string> {
    this.process.stdin!.write(`${command}\n`);
    return this.nextLine();
  }

  private async nextLine(): Promise<string> {
    while (this.lines.length === 0) {
      if (this.process.exitCode !== null || this.process.signalCode !== null) throw new Error(`the store process exited${this.stderrText ? `: ${this.stderrText}` : ''}`);
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
