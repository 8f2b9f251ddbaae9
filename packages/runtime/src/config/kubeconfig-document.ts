/**
 * One kubeconfig file, parsed and checked: its clusters, users and contexts by
 * name, with relative file paths resolved against the file's directory (as
 * kubectl does before merging files). Parsing accepts JSON (what the embedded
 * server writes) without loading a YAML parser, and YAML otherwise.
 */
import { isAbsolute, resolve, sep } from 'node:path';
import { KubeConfigError, kubeconfigSource } from './errors.js';

/**
 * A cluster entry (`clusters[].cluster`), as kubectl reads it.
 *
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 * import { parseKubeConfig, type KubeConfigCluster } from '@operant/runtime';
 *
 * const doc = await parseKubeConfig(await readFile('kubeconfig', 'utf8'), { file: 'kubeconfig', baseDir: '.' });
 * const cluster: KubeConfigCluster | undefined = doc.clusters.get('prod')?.value;
 * console.log(cluster?.server);
 * ```
 */
export interface KubeConfigCluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  /** Not supported by this client: noted in the loaded config's warnings and ignored. */
  'proxy-url'?: string;
}

/**
 * An environment variable for an exec credential plugin.
 *
 * @example
 * ```ts
 * import type { ExecEnvVar } from '@operant/runtime';
 *
 * const env: ExecEnvVar[] = [{ name: 'AWS_PROFILE', value: 'prod' }];
 * ```
 */
export interface ExecEnvVar {
  name: string;
  value: string;
}

/**
 * `users[].user.exec`: a client-go credential plugin.
 *
 * @example
 * ```ts
 * import { type ExecConfig, ExecCredentialProvider } from '@operant/runtime';
 *
 * const exec: ExecConfig = { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws', args: ['eks', 'get-token', '--cluster-name', 'prod'] };
 * const provider = new ExecCredentialProvider(exec, { source: 'kubeconfig /home/me/.kube/config' });
 * ```
 */
export interface ExecConfig {
  apiVersion?: string;
  command: string;
  args?: string[];
  env?: ExecEnvVar[];
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: 'Never' | 'IfAvailable' | 'Always';
}

/**
 * A user entry (`users[].user`).
 *
 * @example
 * ```ts
 * import type { KubeConfigDocument, KubeConfigUser } from '@operant/runtime';
 *
 * declare const doc: KubeConfigDocument; // from parseKubeConfig
 * const user: KubeConfigUser | undefined = doc.users.get('admin')?.value;
 * if (user?.exec) console.log(`credentials from ${user.exec.command}`);
 * ```
 */
export interface KubeConfigUser {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  as?: string;
  'as-uid'?: string;
  'as-groups'?: string[];
  'as-user-extra'?: Record<string, string[]>;
  exec?: ExecConfig;
  'auth-provider'?: { name: string };
}

/**
 * A context entry (`contexts[].context`).
 *
 * @example
 * ```ts
 * import type { KubeConfigContext, KubeConfigDocument } from '@operant/runtime';
 *
 * declare const doc: KubeConfigDocument; // from parseKubeConfig
 * const context: KubeConfigContext | undefined = doc.contexts.get(doc.currentContext)?.value;
 * console.log(context?.cluster, context?.user, context?.namespace ?? 'default');
 * ```
 */
export interface KubeConfigContext {
  cluster: string;
  user: string;
  namespace?: string;
}

/**
 * An entry together with the file it came from (undefined for inline text), so
 * that errors after merging files can name the right one.
 *
 * @example
 * ```ts
 * import { mergeKubeConfigs, type KubeConfigDocument, type KubeConfigUser, type Sourced } from '@operant/runtime';
 *
 * declare const docs: KubeConfigDocument[]; // from parseKubeConfig, in KUBECONFIG order
 * const entry: Sourced<KubeConfigUser> | undefined = mergeKubeConfigs(docs).users.get('admin');
 * console.log(`user admin is from ${entry?.file ?? 'inline text'}`);
 * ```
 */
export interface Sourced<T> {
  value: T;
  file: string | undefined;
}

/**
 * One parsed kubeconfig document (or several merged into one).
 *
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 * import { homedir } from 'node:os';
 * import { dirname, join } from 'node:path';
 * import { parseKubeConfig, type KubeConfigDocument } from '@operant/runtime';
 *
 * const path = join(homedir(), '.kube', 'config');
 * const doc: KubeConfigDocument = await parseKubeConfig(await readFile(path, 'utf8'), { file: path, baseDir: dirname(path) });
 * console.log(doc.currentContext, [...doc.contexts.keys()]);
 * ```
 */
export interface KubeConfigDocument {
  file: string | undefined;
  clusters: Map<string, Sourced<KubeConfigCluster>>;
  users: Map<string, Sourced<KubeConfigUser>>;
  contexts: Map<string, Sourced<KubeConfigContext>>;
  currentContext: string;
}

type Json = Record<string, unknown>;

/** Reads typed fields of one object, failing with the path of the field. */
class FieldReader {
  constructor(
    private readonly source: string,
    private readonly where: string,
    private readonly obj: Json,
  ) {}

  fail(key: string, problem: string): never {
    throw new KubeConfigError(this.source, `${this.where}.${key} ${problem}`);
  }

  string(key: string): string | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    // YAML turns unquoted numbers into numbers (e.g. a numeric password); kubectl reads them as strings.
    if (typeof v === 'number') return String(v);
    if (typeof v !== 'string') this.fail(key, `must be a string, got ${describe(v)}`);
    return v;
  }

  boolean(key: string): boolean | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') this.fail(key, `must be true or false, got ${describe(v)}`);
    return v;
  }

  strings(key: string): string[] | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) this.fail(key, `must be a list of strings`);
    return v as string[];
  }

  object(key: string): Json | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) this.fail(key, `must be a mapping, got ${describe(v)}`);
    return v;
  }

  /** Copies the string fields given into `out`, when present. */
  copyStrings<T extends object>(out: T, keys: readonly (keyof T & string)[]): void {
    for (const key of keys) {
      const v = this.string(key);
      if (v !== undefined && v !== '') (out as Record<string, unknown>)[key] = v;
    }
  }
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'a mapping' : `${typeof v} ${JSON.stringify(v)}`;
}

/** Resolves a path relative to the kubeconfig's directory, as kubectl does; absolute paths stay. */
function resolvePath(baseDir: string, path: string | undefined): string | undefined {
  return path === undefined || isAbsolute(path) ? path : resolve(baseDir, path);
}

/** Exec commands are resolved only when they name a relative path (`./bin/plugin`), not a bare command looked up in PATH. */
function resolveCommand(baseDir: string, command: string): string {
  return !isAbsolute(command) && (command.includes('/') || command.includes(sep)) ? resolve(baseDir, command) : command;
}

function parseCluster(r: FieldReader, baseDir: string): KubeConfigCluster {
  const c: KubeConfigCluster = {};
  r.copyStrings(c, ['server', 'certificate-authority', 'certificate-authority-data', 'tls-server-name', 'proxy-url']);
  const insecure = r.boolean('insecure-skip-tls-verify');
  if (insecure !== undefined) c['insecure-skip-tls-verify'] = insecure;
  c['certificate-authority'] = resolvePath(baseDir, c['certificate-authority']);
  if (c['certificate-authority'] === undefined) delete c['certificate-authority'];
  return c;
}

function parseExec(source: string, where: string, obj: Json, baseDir: string): ExecConfig {
  const r: FieldReader = new FieldReader(source, where, obj);
  const command = r.string('command');
  if (!command) r.fail('command', 'is required');
  const exec: ExecConfig = { command: resolveCommand(baseDir, command) };
  r.copyStrings(exec, ['apiVersion', 'installHint']);
  const args = r.strings('args');
  if (args) exec.args = args;
  const provideClusterInfo = r.boolean('provideClusterInfo');
  if (provideClusterInfo !== undefined) exec.provideClusterInfo = provideClusterInfo;
  const mode = r.string('interactiveMode');
  if (mode !== undefined && mode !== '') {
    if (mode !== 'Never' && mode !== 'IfAvailable' && mode !== 'Always') r.fail('interactiveMode', `must be Never, IfAvailable or Always, got ${JSON.stringify(mode)}`);
    exec.interactiveMode = mode;
  }
  const env = obj.env;
  if (env !== undefined && env !== null) {
    if (!Array.isArray(env)) r.fail('env', 'must be a list of {name, value}');
    exec.env = env.map((e: unknown, i) => {
      if (!isObject(e) || typeof e.name !== 'string' || (typeof e.value !== 'string' && typeof e.value !== 'number')) {
        throw new KubeConfigError(source, `${where}.env[${i}] must have a string name and value`);
      }
      return { name: e.name, value: String(e.value) };
    });
  }
  return exec;
}

function parseUser(source: string, where: string, r: FieldReader, obj: Json, baseDir: string): KubeConfigUser {
  const u: KubeConfigUser = {};
  r.copyStrings(u, ['client-certificate', 'client-certificate-data', 'client-key', 'client-key-data', 'token', 'tokenFile', 'username', 'password', 'as', 'as-uid']);
  for (const key of ['client-certificate', 'client-key', 'tokenFile'] as const) {
    if (u[key] !== undefined) u[key] = resolvePath(baseDir, u[key]);
  }
  const groups = r.strings('as-groups');
  if (groups && groups.length > 0) u['as-groups'] = groups;
  const extra = r.object('as-user-extra');
  if (extra) {
    const out: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(extra)) {
      if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) r.fail(`as-user-extra.${k}`, 'must be a list of strings');
      out[k] = v as string[];
    }
    u['as-user-extra'] = out;
  }
  const exec = r.object('exec');
  if (exec) u.exec = parseExec(source, `${where}.exec`, exec, baseDir);
  const provider = r.object('auth-provider');
  if (provider) u['auth-provider'] = { name: typeof provider.name === 'string' ? provider.name : '' };
  return u;
}

function parseContext(r: FieldReader): KubeConfigContext {
  const cluster = r.string('cluster') ?? '';
  const user = r.string('user') ?? '';
  const ctx: KubeConfigContext = { cluster, user };
  const ns = r.string('namespace');
  if (ns) ctx.namespace = ns;
  return ctx;
}

/**
 * Reads one list (`clusters`, `users`, `contexts`) into a map by name; within
 * one file, the first entry of a name wins, as in kubectl.
 */
function namedEntries<T>(
  source: string,
  file: string | undefined,
  doc: Json,
  list: 'clusters' | 'users' | 'contexts',
  field: 'cluster' | 'user' | 'context',
  parse: (where: string, r: FieldReader, obj: Json) => T,
): Map<string, Sourced<T>> {
  const out = new Map<string, Sourced<T>>();
  const entries = doc[list];
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new KubeConfigError(source, `${list} must be a list, got ${describe(entries)}`);
  entries.forEach((entry: unknown, i) => {
    if (!isObject(entry) || typeof entry.name !== 'string' || entry.name === '') {
      throw new KubeConfigError(source, `${list}[${i}] must have a non-empty string name`);
    }
    const where = `${list}[${JSON.stringify(entry.name)}].${field}`;
    const body = entry[field] ?? {};
    if (!isObject(body)) throw new KubeConfigError(source, `${where} must be a mapping, got ${describe(body)}`);
    if (!out.has(entry.name)) out.set(entry.name, { value: parse(where, new FieldReader(source, where, body), body), file });
  });
  return out;
}

/** Turns kubeconfig text into a plain value: JSON directly, YAML through the `yaml` package (loaded on first use). */
async function parseText(source: string, text: string): Promise<unknown> {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // Not JSON after all (YAML flow mappings also start with '{'): fall through to YAML.
    }
  }
  const { parse } = await import('yaml');
  try {
    return parse(text);
  } catch (e) {
    throw new KubeConfigError(source, `not valid YAML${yamlErrorText((e as Error).message)}`, { cause: e });
  }
}

/**
 * The yaml package's error in one line, its position first: ` at line 2, column 1: Flow sequence
 * ... end with a ]` of `Flow sequence ... end with a ] at line 2, column 1:` and the source lines
 * and caret it adds below (which, on a terminal, pushed the error over several lines).
 */
function yamlErrorText(message: string): string {
  const first = message.split('\n', 1)[0]!;
  const at = / at line (\d+), column (\d+):?$/.exec(first);
  return at ? ` at line ${at[1]}, column ${at[2]}: ${first.slice(0, at.index)}` : `: ${first}`;
}

/**
 * Parses one kubeconfig's text. `file` names it in errors and its directory
 * anchors relative paths; for inline text, `baseDir` does (default: the working directory).
 *
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 * import { dirname } from 'node:path';
 * import { parseKubeConfig } from '@operant/runtime';
 *
 * const path = '/home/me/.kube/config';
 * const doc = await parseKubeConfig(await readFile(path, 'utf8'), { file: path, baseDir: dirname(path) });
 * doc.contexts.get(doc.currentContext);
 * ```
 */
export async function parseKubeConfig(text: string, options: { file?: string; baseDir: string }): Promise<KubeConfigDocument> {
  const source = kubeconfigSource(options.file);
  const raw = await parseText(source, text);
  if (raw === null || raw === undefined) return emptyDocument(options.file);
  if (!isObject(raw)) throw new KubeConfigError(source, `must be a mapping (a Config object), got ${describe(raw)}`);
  if (raw.kind !== undefined && raw.kind !== null && raw.kind !== 'Config') {
    throw new KubeConfigError(source, `kind must be Config, got ${JSON.stringify(raw.kind)}`);
  }
  const current = raw['current-context'];
  if (current !== undefined && current !== null && typeof current !== 'string') {
    throw new KubeConfigError(source, `current-context must be a string, got ${describe(current)}`);
  }
  const dir = options.baseDir;
  return {
    file: options.file,
    clusters: namedEntries(source, options.file, raw, 'clusters', 'cluster', (_w, r) => parseCluster(r, dir)),
    users: namedEntries(source, options.file, raw, 'users', 'user', (w, r, obj) => parseUser(source, w, r, obj, dir)),
    contexts: namedEntries(source, options.file, raw, 'contexts', 'context', (_w, r) => parseContext(r)),
    currentContext: current ?? '',
  };
}

/** A document with nothing in it. */
export function emptyDocument(file?: string): KubeConfigDocument {
  return { file, clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: '' };
}
