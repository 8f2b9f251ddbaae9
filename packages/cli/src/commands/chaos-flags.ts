/**
 * The flags of `operant chaos`, read into a schedule's options: durations
 * (`30s`, `1m30s`, `500ms`, a bare number of seconds), a seed, `host:port`,
 * and the faults as a comma-separated list of `kind[:option...]`, where an
 * option is a number (the code of an `error`, the milliseconds of a
 * `latency`), `applied` (an `error` or `reset` after the server did the
 * write) or `p=<probability>`.
 */
import { allFaultKinds, clusterFaultKinds, errorCodes, faultKinds, operatorFaultKinds, serverFaultKinds, type ErrorCode, type FaultKind, type FaultScope, type FaultTemplate } from '@operant/testing';

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `90s`, `1m30s`, `500ms`, `2` (seconds) -> milliseconds. */
export function parseDuration(text: string, flag = '--duration'): number {
  const t = text.trim();
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  const bare = /^\d+(\.\d+)?$/.test(t);
  if (!bare && (parts.length === 0 || parts.map((p) => p[0]).join('') !== t)) throw new Error(`${flag}: invalid duration ${JSON.stringify(text)}: expected e.g. 30s, 1m30s, 500ms`);
  const ms = bare ? Number(t) * 1000 : parts.reduce((sum, [, n, unit]) => sum + Number(n) * units[unit!]!, 0);
  // At least a millisecond: less is no time for a schedule, and a mean gap of 0 never ends one.
  if (!(ms >= 1)) throw new Error(`${flag}: invalid duration ${JSON.stringify(text)}: must be at least 1ms`);
  // A longer timer fires at once (Node makes it 1 ms).
  if (ms > maxTimerMs) throw new Error(`${flag}: invalid duration ${JSON.stringify(text)}: must be at most ${maxTimerMs}ms (about 596h)`);
  return ms;
}

/** setTimeout's longest delay. */
const maxTimerMs = 2 ** 31 - 1;

export function parseSeed(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) > 2 ** 32 - 1) throw new Error(`--seed: invalid seed ${JSON.stringify(text)}: an integer from 0 to 4294967295`);
  return Number(text);
}

/** `127.0.0.1:0`, `:8443`, `8443` -> host and port. */
export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:(.*):)?(\d+)$/.exec(text.trim());
  if (!m || Number(m[2]) > 65535) throw new Error(`--listen: invalid address ${JSON.stringify(text)}: expected host:port (port 0: any free port)`);
  const host = (m[1] ?? '').replace(/^\[(.*)\]$/, '$1');
  return { host: host || '127.0.0.1', port: Number(m[2]) };
}

const optionNames = { applied: 'applied', probability: 'the probability', ms: 'the latency', code: 'the code', labelSelector: 'the label selector' } as const;

/** `latency:200,error:504:applied,cut-watch,delete-pod:app=web` -> templates. */
export function parseFaults(text: string | undefined): FaultTemplate[] | undefined {
  if (text === undefined || text.trim() === '' || text.trim() === 'all') return undefined;
  return text.split(',').map((item) => {
    const [kind, ...options] = item.trim().split(':');
    if ((operatorFaultKinds as readonly string[]).includes(kind!)) {
      throw new Error(`--faults: ${kind} is an operator fault: the proxy does not run the operator, so a test that runs it plays it (PlayOptions.operator)`);
    }
    if ((serverFaultKinds as readonly string[]).includes(kind!)) {
      // Restarting needs the server's data on disk; compacting does not.
      const player = kind === 'restart-server' ? "a durable TestEnv's faultProxy()" : "a TestEnv's faultProxy()";
      throw new Error(`--faults: ${kind} is a server fault: operant chaos does not run the API server, so a test environment that does plays it (${player})`);
    }
    if (!allFaultKinds.includes(kind as FaultKind)) throw new Error(`--faults: unknown fault ${JSON.stringify(kind)}: kinds are ${[...faultKinds, ...clusterFaultKinds].join(', ')}`);
    const template: Exclude<FaultTemplate, FaultKind> = { kind: kind as FaultKind };
    /** Sets one of the template's parameters; the same one twice (`error:500:503`) is refused, not the last taken. */
    const set = <K extends 'applied' | 'probability' | 'ms' | 'code' | 'labelSelector'>(key: K, value: (typeof template)[K], option: string): void => {
      if (template[key] !== undefined) throw new Error(`--faults: ${JSON.stringify(item)}: ${JSON.stringify(option)} sets ${optionNames[key]} a second time`);
      template[key] = value;
    };
    for (const option of options) {
      if (option === 'applied' && (kind === 'error' || kind === 'reset')) set('applied', true, option);
      else if (/^p=(0(\.\d+)?|1(\.0+)?)$/.test(option) && (kind === 'error' || kind === 'reset')) set('probability', Number(option.slice(2)), option);
      else if (/^\d+$/.test(option) && kind === 'latency') {
        if (Number(option) > maxTimerMs) throw new Error(`--faults: ${JSON.stringify(item)}: a latency of at most ${maxTimerMs} ms`);
        set('ms', Number(option), option);
      } else if (/^\d+$/.test(option) && kind === 'error' && (errorCodes as readonly number[]).includes(Number(option))) set('code', Number(option) as ErrorCode, option);
      else if ((clusterFaultKinds as readonly string[]).includes(kind!) && /^[\w./-]+!?==?[\w.-]*$/.test(option)) set('labelSelector', option, option);
      else throw new Error(`--faults: ${JSON.stringify(item)}: ${kind} takes no option ${JSON.stringify(option)}${optionsOf(kind as FaultKind)}`);
    }
    return template;
  });
}

/** What a kind's options are, for the refusal of one it does not take: a mistyped code or probability says what would do. */
function optionsOf(kind: FaultKind): string {
  const probability = 'p=<a probability from 0 to 1>';
  if (kind === 'latency') return ': its option is the delay in ms, e.g. latency:200';
  if (kind === 'error') return `: its options are a code (${errorCodes.join(', ')}), applied and ${probability}, e.g. error:503:p=0.3`;
  if (kind === 'reset') return `: its options are applied and ${probability}, e.g. reset:applied:p=0.3`;
  if ((clusterFaultKinds as readonly string[]).includes(kind)) return `: its option is a label selector, e.g. ${kind}:app=web`;
  return `: ${kind} takes no options`;
}

/** `--verbs`, `--resources`, `--namespaces` (comma-separated) -> the scope of every fault. */
export function parseScope(flags: { verbs?: string; resources?: string; namespaces?: string }): FaultScope | undefined {
  /** A comma-separated list; an empty one would hit nothing (or, for --verbs, everything): refused. */
  const list = (s: string | undefined, flag: string): string[] | undefined => {
    if (s === undefined) return undefined;
    const items = s.split(',').map((x) => x.trim()).filter(Boolean);
    if (items.length === 0) throw new Error(`${flag}: empty list ${JSON.stringify(s)}: name at least one, or leave the flag out`);
    return items;
  };
  const verbs = list(flags.verbs, '--verbs');
  const known = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
  for (const v of verbs ?? []) if (!known.includes(v)) throw new Error(`--verbs: unknown verb ${JSON.stringify(v)}: verbs are ${known.join(', ')}`);
  const scope: FaultScope = {
    ...(verbs ? { verbs: verbs as FaultScope['verbs'] } : {}),
    ...(flags.resources !== undefined ? { resources: list(flags.resources, '--resources') } : {}),
    ...(flags.namespaces !== undefined ? { namespaces: list(flags.namespaces, '--namespaces') } : {}),
  };
  return Object.keys(scope).length > 0 ? scope : undefined;
}
