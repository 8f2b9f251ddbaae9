/**
 * For tests: the runtime's real logger (pino, JSON lines, every level) writing
 * into memory, so a test can read what an operator would log, and so that a
 * test file can have every line it logs checked for repeated keys (issue 19:
 * `{"component":"webhook","component":"webhook-server"}`, which many log
 * pipelines reject).
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after } from 'node:test';
import type { Logger } from 'pino';
import type { ControllerLogger } from '../controller/logger.js';
import { createLogger } from '../logging/logger.js';
import { repeatedKeys } from './json-keys.js';

/** Collects the lines a logger writes, and lets a test await one. */
export class LogLines extends Writable {
  readonly text: string[] = [];
  private waiters: Array<{ match: (line: string) => boolean; resolve: (line: string) => void }> = [];

  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      this.text.push(line);
      this.waiters = this.waiters.filter((w) => !(w.match(line) && (w.resolve(line), true)));
    }
    done();
  }

  /** The first line, logged already or later, that `match` accepts. */
  next(match: (line: string) => boolean): Promise<string> {
    const seen = this.text.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** Each line that repeats a key in one of its objects, with the keys it repeats. */
  withRepeatedKeys(): Array<{ keys: string[]; line: string }> {
    return this.text.map((line) => ({ keys: repeatedKeys(line), line })).filter((l) => l.keys.length > 0);
  }
}

/**
 * A pino logger (as {@link createLogger} makes it) at debug level, writing JSON to `lines`.
 *
 * @example
 * ```ts
 * const { logger, lines } = jsonLogger();
 * const mgr = await Manager.create({ logger });
 * ```
 */
export function jsonLogger(): { logger: Logger & ControllerLogger; lines: LogLines } {
  const lines = new LogLines();
  return { logger: createLogger({ destination: lines, level: 'debug', format: 'json' }), lines };
}

/**
 * A {@link jsonLogger} for a whole test file (or suite): when its tests are
 * done, every line any of them logged through it must be free of repeated keys.
 *
 * @example
 * ```ts
 * const logs = useCheckedLogs();
 * test('starts', async () => { const mgr = await Manager.create({ logger: logs.logger }); ... });
 * ```
 */
export function useCheckedLogs(): { logger: Logger & ControllerLogger; lines: LogLines } {
  const logs = jsonLogger();
  after(() => {
    assert.deepEqual(logs.lines.withRepeatedKeys(), [], 'log lines that repeat a key');
  });
  return logs;
}
