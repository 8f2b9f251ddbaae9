/**
 * Named health checks and the HTTP answer kube components give for them
 * (`/healthz`, `/readyz`): `ok` when all pass; otherwise a line per check
 * (`[+]name ok`, `[-]name failed: reason`) and a failing status. `?verbose`
 * lists the checks when all pass; `/healthz/<name>` runs one check.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A health check: passes by returning (or resolving) nothing or true; fails by
 * returning false or throwing (the error's message is the reason).
 *
 * @example
 * ```ts
 * import { type HealthCheck, Namespace } from '@operant/runtime';
 *
 * const apiReachable: HealthCheck = async () => {
 *   await client.list(Namespace, { limit: 1 });
 * };
 * ```
 */
export type HealthCheck = () => void | boolean | Promise<void | boolean>;

/**
 * One check's outcome.
 *
 * @example
 * ```ts
 * import type { CheckResult } from '@operant/runtime';
 *
 * const result: CheckResult = { name: 'informers', ok: false, reason: 'caches not synced: pods' };
 * ```
 */
export interface CheckResult {
  name: string;
  ok: boolean;
  reason?: string;
}

const checkName = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

/**
 * The checks of one endpoint.
 *
 * @example
 * ```ts
 * import { HealthChecks } from './health.js';
 *
 * const readyz = new HealthChecks('readyz', 503);
 * readyz.add('informers', () => informers.informers().every((i) => i.hasSynced()));
 * const { ok } = await readyz.run();
 * ```
 */
export class HealthChecks {
  private readonly checks = new Map<string, HealthCheck>();

  /** `endpoint` names the endpoint in answers (`healthz check failed`); `failureStatus` is the HTTP status of a failure. */
  constructor(
    readonly endpoint: string,
    private readonly failureStatus: number,
  ) {}

  /** Adds a check; names are unique, letters, digits, `.`, `_` and `-`. */
  add(name: string, check: HealthCheck): void {
    if (!checkName.test(name)) throw new TypeError(`invalid ${this.endpoint} check name ${JSON.stringify(name)}`);
    if (this.checks.has(name)) throw new Error(`${this.endpoint} check ${name} already exists`);
    this.checks.set(name, check);
  }

  /** The check names, in the order they were added. */
  names(): string[] {
    return [...this.checks.keys()];
  }

  /** Runs every check (or only `only`), concurrently. */
  async run(only?: string): Promise<{ ok: boolean; results: CheckResult[] }> {
    const selected = [...this.checks].filter(([name]) => only === undefined || name === only);
    const results = await Promise.all(selected.map(([name, check]) => runCheck(name, check)));
    return { ok: results.every((r) => r.ok), results };
  }

  /**
   * Answers a request for this endpoint; `subpath` is what follows the
   * endpoint's path (`''`, or `/name` for one check).
   */
  async serve(req: IncomingMessage, res: ServerResponse, subpath: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const only = subpath.replace(/^\/+/, '') || undefined;
    if (only !== undefined && !this.checks.has(only)) return void text(res, 404, `${this.endpoint} check ${only} not found\n`);
    const { ok, results } = await this.run(only);
    const verbose = url.searchParams.has('verbose');
    if (ok && !verbose) return void text(res, 200, 'ok');
    const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.reason ?? 'reason withheld'}`));
    lines.push(ok ? `${this.endpoint} check passed` : `${this.endpoint} check failed`);
    text(res, ok ? 200 : this.failureStatus, lines.join('\n') + '\n');
  }
}

async function runCheck(name: string, check: HealthCheck): Promise<CheckResult> {
  try {
    const passed = await check();
    return passed === false ? { name, ok: false } : { name, ok: true };
  } catch (err) {
    return { name, ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
