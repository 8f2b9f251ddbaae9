/**
 * client-go credential plugins (`users[].user.exec`): runs the command with its
 * args and env plus `KUBERNETES_EXEC_INFO`, reads the ExecCredential it prints,
 * and caches the credential until its `expirationTimestamp` (or until the
 * server answers 401). Both bearer tokens and client certificates are supported.
 */
import { spawn } from 'node:child_process';
import type { ExecConfig } from './kubeconfig-document.js';
import type { CredentialProvider, Credentials } from './credentials.js';
import { KubeConfigError } from './errors.js';

const supportedApiVersions = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/**
 * The cluster facts passed to plugins that ask for them (`provideClusterInfo: true`), as the
 * `spec.cluster` of the ExecCredential they read from `KUBERNETES_EXEC_INFO`.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { ExecCredentialProvider, type ExecClusterInfo } from '@operant/runtime';
 *
 * const caPem = readFileSync('ca.crt', 'utf8');
 * const cluster: ExecClusterInfo = { server: 'https://10.0.0.1:6443', 'certificate-authority-data': Buffer.from(caPem).toString('base64') };
 * new ExecCredentialProvider({ apiVersion: 'client.authentication.k8s.io/v1', command: 'my-plugin', provideClusterInfo: true }, { source: 'kubeconfig /home/me/.kube/config', cluster });
 * ```
 */
export interface ExecClusterInfo {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  /** Base64 of the CA PEM, as the Go []byte field is encoded. */
  'certificate-authority-data'?: string;
}

/**
 * Where the plugin is configured (named in errors), and what it may be told.
 *
 * @example
 * ```ts
 * import { ExecCredentialProvider, type ExecCredentialOptions } from '@operant/runtime';
 *
 * const options: ExecCredentialOptions = { source: 'kubeconfig /home/me/.kube/config', user: 'prod' };
 * const provider = new ExecCredentialProvider({ apiVersion: 'client.authentication.k8s.io/v1', command: 'aws', args: ['eks', 'get-token', '--cluster-name', 'prod'] }, options);
 * ```
 */
export interface ExecCredentialOptions {
  /** The kubeconfig it is in, for errors: `kubeconfig /home/me/.kube/config`. */
  source: string;
  /** The kubeconfig user it belongs to, for errors. */
  user?: string;
  /** Passed to the plugin when it sets `provideClusterInfo`. */
  cluster?: ExecClusterInfo;
  /** The wall clock (epoch ms) that expirations are compared with; default `Date.now`. */
  now?: () => number;
}

interface CachedCredential {
  credentials: Credentials;
  /** Epoch milliseconds; undefined = valid until the server rejects it. */
  expiresAt: number | undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Runs an exec credential plugin on demand.
 *
 * @example
 * ```ts
 * import { ExecCredentialProvider } from '@operant/runtime';
 *
 * const provider = new ExecCredentialProvider(
 *   { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws', args: ['eks', 'get-token', '--cluster-name', 'prod'] },
 *   { source: 'kubeconfig /home/me/.kube/config', user: 'prod' },
 * );
 * const { token } = await provider.credentials();
 * ```
 */
export class ExecCredentialProvider implements CredentialProvider {
  readonly description: string;
  private cached: CachedCredential | undefined;
  private running: Promise<CachedCredential> | undefined;
  private readonly apiVersion: string;

  constructor(
    private readonly exec: ExecConfig,
    private readonly options: ExecCredentialOptions,
  ) {
    this.description = `exec plugin ${exec.command}`;
    const apiVersion = exec.apiVersion ?? '';
    if (!supportedApiVersions.includes(apiVersion)) {
      this.fail(`invalid apiVersion ${JSON.stringify(apiVersion)}; supported: ${supportedApiVersions.join(', ')}`, false);
    }
    if (exec.interactiveMode === 'Always') this.fail('interactiveMode Always needs a terminal, which an operator does not have');
    this.apiVersion = apiVersion;
  }

  async credentials(): Promise<Credentials> {
    const cached = this.cached;
    if (cached && (cached.expiresAt === undefined || (this.options.now ?? Date.now)() < cached.expiresAt)) return cached.credentials;
    // One run at a time: concurrent requests share it.
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    const fresh = await this.running;
    this.cached = fresh;
    return fresh.credentials;
  }

  invalidate(used: Credentials): boolean {
    // Only drop the credential that failed: a newer one may already have replaced it.
    if (this.cached && this.cached.credentials === used) this.cached = undefined;
    return true;
  }

  private execInfo(): string {
    const spec: Record<string, unknown> = { interactive: false };
    if (this.exec.provideClusterInfo && this.options.cluster) spec.cluster = this.options.cluster;
    return JSON.stringify({ apiVersion: this.apiVersion, kind: 'ExecCredential', spec });
  }

  private fail(problem: string, named = true): never {
    const user = this.options.user !== undefined ? `user ${JSON.stringify(this.options.user)}: ` : '';
    throw new KubeConfigError(this.options.source, `${user}exec plugin${named ? ` ${this.exec.command}` : ''}: ${problem}`);
  }

  private async run(): Promise<CachedCredential> {
    const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: this.execInfo() };
    for (const e of this.exec.env ?? []) env[e.name] = e.value;
    const { code, stdout, stderr, error } = await new Promise<{ code: number | null; stdout: string; stderr: string; error?: NodeJS.ErrnoException }>((resolve) => {
      const child = spawn(this.exec.command, this.exec.args ?? [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.on('error', (e: NodeJS.ErrnoException) => resolve({ code: null, stdout: '', stderr: '', error: e }));
      child.on('close', (c) => resolve({ code: c, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    });
    if (error) {
      const hint = this.exec.installHint ? `\n\n${this.exec.installHint}` : '';
      if (error.code === 'ENOENT') this.fail(`executable not found${hint}`);
      this.fail(`could not run: ${error.message}${hint}`);
    }
    if (code !== 0) this.fail(`exited with code ${code}${stderr.trim() ? `: ${stderr.trim()}` : ''}`);
    return this.decode(stdout);
  }

  private decode(stdout: string): CachedCredential {
    let out: unknown;
    try {
      out = JSON.parse(stdout);
    } catch {
      this.fail(`printed something that is not JSON: ${JSON.stringify(stdout.slice(0, 200))}`);
    }
    if (!isObject(out) || out.kind !== 'ExecCredential') this.fail('did not print an ExecCredential');
    if (out.apiVersion !== this.apiVersion) {
      this.fail(`printed apiVersion ${JSON.stringify(out.apiVersion)}, but the kubeconfig asks for ${this.apiVersion}`);
    }
    const status = out.status;
    if (!isObject(status)) this.fail('printed an ExecCredential without status');
    const { token, clientCertificateData: cert, clientKeyData: key, expirationTimestamp } = status;
    const credentials: Credentials = {};
    if (typeof token === 'string' && token !== '') credentials.token = token;
    if ((typeof cert === 'string' && cert !== '') !== (typeof key === 'string' && key !== '')) {
      this.fail('status must set both clientCertificateData and clientKeyData, or neither');
    }
    if (typeof cert === 'string' && cert !== '' && typeof key === 'string') credentials.clientCertificate = { cert, key };
    if (!credentials.token && !credentials.clientCertificate) this.fail('status has neither token nor clientCertificateData');
    let expiresAt: number | undefined;
    if (expirationTimestamp !== undefined && expirationTimestamp !== null) {
      expiresAt = typeof expirationTimestamp === 'string' ? Date.parse(expirationTimestamp) : NaN;
      if (Number.isNaN(expiresAt)) this.fail(`status.expirationTimestamp is not an RFC 3339 time: ${JSON.stringify(expirationTimestamp)}`);
    }
    return { credentials: Object.freeze(credentials), expiresAt };
  }
}
