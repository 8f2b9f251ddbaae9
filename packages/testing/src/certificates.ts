/**
 * One CA and one serving certificate for everything the toolkit serves over
 * TLS on this machine: the environments' API servers, the webhook servers of
 * the operators under test (and so the caBundle of the webhook configurations
 * installed for them) and the fault proxies. Minting them costs a few milliseconds, but loading the x509
 * library costs a hundred or more, and an environment per test file must pay
 * neither each time: the first caller in a process reads them from a cache
 * directory shared by the user's test processes (made there once, renewed
 * when near expiry, by the runtime's `ensureLocalCertificates`), and every
 * later caller gets the same. Where the directory cannot be written they are
 * made in memory, once per process.
 */
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { ensureLocalCertificates, generateServingCertificate, type GeneratedCertificates } from '@operant/runtime';

let shared: Promise<GeneratedCertificates> | undefined;

/** The names a local server answers to, and those an API server's certificate carries for in-cluster clients. */
const names = {
  caCommonName: 'operant-testing-ca',
  dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
  ipAddresses: ['127.0.0.1', '::1', '10.96.0.1'],
};

/**
 * Where the certificates are kept between processes: `OPERANT_TESTING_CERT_DIR`,
 * else `operant-testing-certs-<user>` in the temporary directory.
 *
 * @example
 * ```ts
 * import { rmSync } from 'node:fs';
 * import { certificateCacheDir } from '@operant/testing';
 *
 * rmSync(certificateCacheDir(), { recursive: true, force: true }); // the next test process makes new ones
 * ```
 */
export function certificateCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.OPERANT_TESTING_CERT_DIR || join(tmpdir(), `operant-testing-certs-${safeUser()}`);
}

function safeUser(): string {
  try {
    return userInfo().username.replace(/[^\w.-]/g, '_') || String(process.getuid?.() ?? 'user');
  } catch {
    return String(process.getuid?.() ?? 'user');
  }
}

/**
 * The CA and serving certificate of this process, for `localhost`, `127.0.0.1`
 * and `::1` (and the in-cluster names of the API server: `kubernetes.default.svc`...).
 *
 * @example
 * ```ts
 * import { localWebhookClientConfig } from '@operant/runtime';
 * import { processCertificates } from '@operant/testing';
 *
 * const { caPem } = await processCertificates();
 * const clientConfig = localWebhookClientConfig({ port: 9443, path: '/mutate-apps-v1-deployment', caPem });
 * ```
 */
export function processCertificates(): Promise<GeneratedCertificates> {
  shared ??= ensureLocalCertificates(certificateCacheDir(), names)
    .catch(() => generateServingCertificate(names))
    .catch((err: unknown) => {
      shared = undefined;
      throw err;
    });
  return shared;
}
