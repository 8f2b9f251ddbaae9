/**
 * A serving certificate read from a directory, typically a mounted Secret
 * (`tls.crt`, `tls.key`, `ca.crt`), and reloaded when the files change, in
 * the manner of controller-runtime's certwatcher: a directory watch (which
 * also sees the kubelet's atomic `..data` symlink swap) plus polling, for
 * file systems whose events go missing. A pair that does not hold together
 * yet (key written, certificate not) is ignored until it does; the previous
 * pair stays in service meanwhile.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { childLogger, stderrControllerLogger } from '../../controller/logger.js';
import type { CertificateSource, ServingCertificate } from '../contracts.js';
import { CertificateError, checkPair } from './pair.js';
import type { LogMethods, Logger } from '../../logging/log.js';

/**
 * Options of {@link directoryCertificateSource}.
 *
 * @example
 * ```ts
 * import type { DirectoryCertificateSourceOptions } from '@operant/runtime';
 *
 * const options: DirectoryCertificateSourceOptions = { certFile: 'tls.crt', keyFile: 'tls.key', caFile: 'ca.crt', pollIntervalMs: 10_000 };
 * ```
 */
export interface DirectoryCertificateSourceOptions {
  /** The certificate (chain) file in the directory; default `tls.crt`. */
  certFile?: string;
  /** The private key file in the directory; default `tls.key`. */
  keyFile?: string;
  /** A CA file to read along (e.g. `ca.crt`, as cert-manager writes it); optional, ignored when absent. */
  caFile?: string;
  /**
   * When true, a directory that does not exist is not an error: the function
   * resolves to `undefined` (e.g. webhooks disabled, nothing mounted). A
   * directory that exists but holds a broken pair is an error either way.
   */
  optional?: boolean;
  /** How often to re-read the files besides watching them; default 10 s, 0 turns polling off. */
  pollIntervalMs?: number;
  /** Watch the directory for changes; default true. Turn off where file events do not arrive (some network file systems) and rely on polling. */
  watch?: boolean;
  /** Where reloads and rejected pairs are reported; default warnings and errors to stderr. */
  logger?: LogMethods;
}

type Trigger = 'start' | 'watch' | 'poll' | 'manual';

/**
 * A {@link CertificateSource} over files in a directory. Made by
 * {@link directoryCertificateSource}, which reads and checks the first pair.
 *
 * @example
 * ```ts
 * import { directoryCertificateSource } from '@operant/runtime';
 *
 * const source = await directoryCertificateSource('/tmp/k8s-webhook-server/serving-certs');
 * source.onChange(() => log.info({}, 'serving a new certificate'));
 * void source.start(signal);
 * ```
 */
export class DirectoryCertificateSource implements CertificateSource {
  readonly dir: string;
  private readonly certPath: string;
  private readonly keyPath: string;
  private readonly caPath: string | undefined;
  private readonly pollIntervalMs: number;
  private readonly watchFiles: boolean;
  private readonly log: Logger;
  private pair: ServingCertificate;
  private caText: string | undefined;
  private expires: Date;
  private readonly listeners = new Set<(pair: ServingCertificate) => void>();
  private running: Promise<boolean> | undefined;
  private queued: Promise<boolean> | undefined;
  private lastProblem: string | undefined;
  private active = false;

  private constructor(dir: string, options: DirectoryCertificateSourceOptions, first: LoadedFiles) {
    this.dir = dir;
    this.certPath = join(dir, options.certFile ?? 'tls.crt');
    this.keyPath = join(dir, options.keyFile ?? 'tls.key');
    this.caPath = options.caFile ? join(dir, options.caFile) : undefined;
    this.pollIntervalMs = options.pollIntervalMs ?? 10_000;
    this.watchFiles = options.watch ?? true;
    this.log = childLogger(options.logger ?? stderrControllerLogger, { certDir: dir });
    this.pair = { cert: first.cert, key: first.key };
    this.caText = first.ca;
    this.expires = first.notAfter;
  }

  /** Reads and checks the first pair; see {@link directoryCertificateSource}. */
  static async open(dir: string, options: DirectoryCertificateSourceOptions & { optional: true }): Promise<DirectoryCertificateSource | undefined>;
  static async open(dir: string, options?: DirectoryCertificateSourceOptions): Promise<DirectoryCertificateSource>;
  static async open(dir: string, options: DirectoryCertificateSourceOptions = {}): Promise<DirectoryCertificateSource | undefined> {
    try {
      const info = await stat(dir);
      if (!info.isDirectory()) throw new CertificateError(`the certificate directory ${dir} is not a directory`, [dir]);
    } catch (e) {
      if (e instanceof CertificateError) throw e;
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        if (options.optional) return undefined;
        throw new CertificateError(`the certificate directory ${dir} does not exist`, [dir], { cause: e });
      }
      throw new CertificateError(`cannot read the certificate directory ${dir}: ${e instanceof Error ? e.message : String(e)}`, [dir], { cause: e });
    }
    const caFile = options.caFile ? join(dir, options.caFile) : undefined;
    const first = await readPair(join(dir, options.certFile ?? 'tls.crt'), join(dir, options.keyFile ?? 'tls.key'), caFile);
    return new DirectoryCertificateSource(dir, options, first);
  }

  /** The pair in service. */
  current(): ServingCertificate {
    return this.pair;
  }

  /** The CA file's PEM as last read (when `caFile` was given and exists). */
  get caPem(): string | undefined {
    return this.caText;
  }

  /** When the certificate in service expires. */
  get notAfter(): Date {
    return this.expires;
  }

  onChange(listener: (pair: ServingCertificate) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Watches the directory (and polls it) until `signal` aborts; the promise
   * settles then. While it runs, the watch and the poll timer keep the process
   * alive, as any server would. Reads the files once at the start, in case they
   * changed since the source was made.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.active) throw new Error(`the certificate source for ${this.dir} is already started`);
    if (signal.aborted) return;
    this.active = true;
    let watcher: FSWatcher | undefined;
    const openWatcher = (): void => {
      if (!this.watchFiles) return;
      try {
        watcher = watch(this.dir, () => void this.schedule('watch'));
        // A removed or replaced directory ends the watch; polling reopens it.
        watcher.on('error', (err) => {
          this.log.debug({ err }, 'certificate directory watch ended; relying on polling');
          watcher?.close();
          watcher = undefined;
        });
      } catch (err) {
        this.log.debug({ err }, 'cannot watch the certificate directory; relying on polling');
        watcher = undefined;
      }
    };
    openWatcher();
    const poll =
      this.pollIntervalMs > 0
        ? setInterval(() => {
            if (!watcher) openWatcher();
            void this.schedule('poll');
          }, this.pollIntervalMs)
        : undefined;
    void this.schedule('start');
    try {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    } finally {
      if (poll) clearInterval(poll);
      watcher?.close();
      this.active = false;
    }
  }

  /**
   * Reads the files now; resolves true when a new pair was taken into service
   * (listeners have been called by then).
   */
  reload(): Promise<boolean> {
    return this.schedule('manual');
  }

  /** Concurrent reads share one, plus at most one queued behind it so no change is missed. */
  private schedule(trigger: Trigger): Promise<boolean> {
    if (!this.running) {
      this.running = this.readOnce(trigger).finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.queued ??= this.running.then(() => {
      this.queued = undefined;
      return this.schedule(trigger);
    });
    return this.queued;
  }

  private async readOnce(trigger: Trigger): Promise<boolean> {
    let files: LoadedFiles;
    try {
      files = await readPair(this.certPath, this.keyPath, this.caPath);
    } catch (err) {
      this.report(trigger, err, err instanceof Error ? err.message : String(err));
      return false;
    }
    this.caText = files.ca;
    if (files.cert === this.pair.cert && files.key === this.pair.key) return false;
    this.pair = { cert: files.cert, key: files.key };
    this.expires = files.notAfter;
    this.lastProblem = undefined;
    this.log.info({ notAfter: files.notAfter.toISOString(), trigger }, 'updated serving certificate');
    for (const listener of [...this.listeners]) {
      try {
        listener(this.pair);
      } catch (err) {
        this.log.error({ err }, 'certificate change listener failed');
      }
    }
    return true;
  }

  /**
   * A pair caught half-written is normal during a rotation and is re-read on
   * the next event, so it is only a debug line; one still broken when the poll
   * comes round is worth a warning (once per distinct problem).
   */
  private report(trigger: Trigger, err: unknown, problem: string): void {
    if (trigger === 'watch' || trigger === 'start' || problem === this.lastProblem) {
      this.log.debug({ err, trigger }, 'ignoring inconsistent certificate files; keeping the previous pair');
      return;
    }
    this.lastProblem = problem;
    this.log.warn({ err, trigger }, 'cannot load the certificate files; keeping the previous pair');
  }
}

/** A checked pair as read from files. */
interface LoadedFiles {
  cert: string;
  key: string;
  ca: string | undefined;
  notAfter: Date;
}

async function readPair(certPath: string, keyPath: string, caPath: string | undefined): Promise<LoadedFiles> {
  // Settled before judging, so that with both files missing the certificate is named, every time.
  const [cert, key, ca] = await Promise.allSettled([readText(certPath), readText(keyPath), caPath ? readOptional(caPath) : Promise.resolve(undefined)]);
  if (cert.status === 'rejected') throw cert.reason;
  if (key.status === 'rejected') throw key.reason;
  if (ca.status === 'rejected') throw ca.reason;
  const { notAfter } = checkPair(cert.value, key.value, { cert: certPath, key: keyPath });
  return { cert: cert.value, key: key.value, ca: ca.value, notAfter };
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : e instanceof Error ? e.message : String(e);
    throw new CertificateError(`cannot read ${path}: ${why}`, [path], { cause: e });
  }
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CertificateError(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`, [path], { cause: e });
  }
}

/**
 * Reads a certificate and key from a directory (a mounted Secret) and checks
 * that the key is the certificate's, failing with a {@link CertificateError}
 * that names the files. Call `start(signal)` on the result to follow changes.
 *
 * With `optional: true` a missing directory resolves to `undefined`, for
 * operators whose webhooks are turned off where nothing is mounted; without
 * it a missing directory is an error naming it.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:https';
 * import { directoryCertificateSource } from '@operant/runtime';
 *
 * const source = await directoryCertificateSource('/tmp/k8s-webhook-server/serving-certs', { caFile: 'ca.crt' });
 * const server = createServer({ ...source.current() });
 * source.onChange((pair) => server.setSecureContext(pair));
 * void source.start(signal);
 * ```
 */
export async function directoryCertificateSource(
  dir: string,
  options: DirectoryCertificateSourceOptions & { optional: true },
): Promise<DirectoryCertificateSource | undefined>;
/**
 * Reads and checks the pair in `dir`; a missing directory is an error naming it.
 *
 * @example
 * ```ts
 * import { directoryCertificateSource } from '@operant/runtime';
 *
 * const source = await directoryCertificateSource('/tmp/k8s-webhook-server/serving-certs');
 * ```
 */
export async function directoryCertificateSource(dir: string, options?: DirectoryCertificateSourceOptions): Promise<DirectoryCertificateSource>;
export async function directoryCertificateSource(
  dir: string,
  options: DirectoryCertificateSourceOptions = {},
): Promise<DirectoryCertificateSource | undefined> {
  return DirectoryCertificateSource.open(dir, options);
}
