/**
 * Kubeconfig loading, checked against the real embedded API server: every way
 * of finding and authenticating (inline text, files with relative paths,
 * KUBECONFIG merging, home directory, in-cluster, token files, client
 * certificates, exec plugins) must end in a request the server accepts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { RunningApiServer } from '@operant/apiserver';
import { TestEnv, processCertificates } from '@operant/testing';
import type { KubeObject } from '@operant/apimachinery';
import { defineKind } from '../kind.js';
import { Client } from '../client/client.js';
import { ApiError, isUnauthorized } from '../client/api-error.js';
import { KubeConfigError } from './errors.js';
import { loadKubeConfig } from './load.js';
import { loadInClusterConfig } from './in-cluster.js';
import type { ClientConfig } from './client-config.js';

interface SelfSubjectReview extends KubeObject {
  status?: { userInfo?: { username?: string; groups?: string[] } };
}
const SelfSubjectReview = defineKind<SelfSubjectReview>({
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  namespaced: false,
});
const Namespace = defineKind({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false });

/** Who the server thinks the config authenticates as (`kubectl auth whoami`). */
async function whoami(config: ClientConfig): Promise<string | undefined> {
  const client = Client.fromConfig(config, { qps: Infinity });
  try {
    const review = await client.create(SelfSubjectReview, { metadata: {} });
    return review.status?.userInfo?.username;
  } finally {
    client.close();
  }
}

interface KubeconfigParts {
  cluster?: Record<string, unknown>;
  user?: Record<string, unknown>;
  context?: Record<string, unknown>;
  name?: string;
}

/** A one-context kubeconfig as a plain object. */
function kubeconfig(parts: KubeconfigParts): Record<string, unknown> {
  const name = parts.name ?? 'test';
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: parts.cluster ?? {} }],
    users: [{ name, user: parts.user ?? {} }],
    contexts: [{ name, context: { cluster: name, user: name, ...parts.context } }],
    'current-context': name,
  };
}

describe('kubeconfig loading against the embedded server', () => {
  let env: TestEnv;
  let server: RunningApiServer;
  let dir: string;

  before(async () => {
    env = await TestEnv.start();
    server = env.server;
    dir = await mkdtemp(join(tmpdir(), 'operant-kubeconfig-'));
  });
  after(async () => {
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test("the server's own kubeconfig text authenticates as the admin, namespace from the context", async () => {
    const config = await loadKubeConfig({ kubeconfigText: env.kubeconfig.text });
    assert.equal(config.server, server.url);
    assert.equal(config.namespace, 'default');
    assert.equal(config.source.context, 'operant');
    assert.equal(await whoami(config), 'kubernetes-admin');
  });

  test('a YAML file with relative certificate-authority and tokenFile paths, resolved against its directory', async () => {
    const sub = join(dir, 'relative', 'conf');
    await mkdir(join(sub, 'pki'), { recursive: true });
    await writeFile(join(sub, 'pki', 'ca.crt'), server.caPem);
    await writeFile(join(sub, 'token'), `${server.adminToken}\n`);
    const path = join(sub, 'config.yaml');
    await writeFile(
      path,
      stringify(kubeconfig({ cluster: { server: server.url, 'certificate-authority': 'pki/ca.crt' }, user: { tokenFile: './token' }, context: { namespace: 'kube-system' } })),
    );
    // Loaded from another working directory: only the file's directory may anchor the paths.
    const config = await loadKubeConfig({ path });
    assert.equal(config.namespace, 'kube-system');
    assert.equal(config.credentials.description, `tokenFile ${join(sub, 'token')}`);
    assert.equal(await whoami(config), 'kubernetes-admin');
  });

  test('a token file is re-read when it changes (rotation)', async () => {
    const tokenPath = join(dir, 'rotating-token');
    await writeFile(tokenPath, server.adminToken);
    const config = await loadKubeConfig({
      kubeconfigText: JSON.stringify(kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caPem).toString('base64') }, user: { tokenFile: tokenPath } })),
    });
    const client = Client.fromConfig(config, { qps: Infinity });
    try {
      await client.get(Namespace, 'default');
      await writeFile(tokenPath, 'not-a-valid-token');
      await assert.rejects(client.get(Namespace, 'default'), (e) => isUnauthorized(e));
      await writeFile(tokenPath, server.adminToken);
      assert.equal((await client.get(Namespace, 'default')).metadata.name, 'default');
    } finally {
      client.close();
    }
  });

  test('KUBECONFIG files merge as kubectl merges them: the first to define a name or current-context wins', async () => {
    const caData = Buffer.from(server.caPem).toString('base64');
    const first = join(dir, 'merge-first');
    const second = join(dir, 'merge-second');
    await writeFile(
      first,
      JSON.stringify({
        clusters: [{ name: 'shared', cluster: { server: server.url, 'certificate-authority-data': caData } }],
        contexts: [{ name: 'mine', context: { cluster: 'shared', user: 'me', namespace: 'first-ns' } }],
        'current-context': 'mine',
      }),
    );
    await writeFile(
      second,
      JSON.stringify({
        clusters: [{ name: 'shared', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [{ name: 'me', user: { token: server.adminToken } }],
        contexts: [{ name: 'mine', context: { cluster: 'shared', user: 'me', namespace: 'second-ns' } }, { name: 'other', context: { cluster: 'shared', user: 'me' } }],
        'current-context': 'other',
      }),
    );
    const missing = join(dir, 'does-not-exist');
    const config = await loadKubeConfig({ env: { KUBECONFIG: [missing, first, '', second].join(':') } });
    assert.equal(config.server, server.url);
    assert.equal(config.namespace, 'first-ns');
    assert.equal(config.source.context, 'mine');
    assert.deepEqual(config.source.files, [first, second]);
    assert.equal(await whoami(config), 'kubernetes-admin');
    // A chosen context comes from the merged set too; user from the second file.
    const other = await loadKubeConfig({ env: { KUBECONFIG: `${first}:${second}` }, context: 'other' });
    assert.equal(other.namespace, 'default');
    assert.equal(await whoami(other), 'kubernetes-admin');
  });

  test('~/.kube/config is the fallback when KUBECONFIG is unset and this is not a pod', async () => {
    const home = join(dir, 'home');
    await mkdir(join(home, '.kube'), { recursive: true });
    await writeFile(join(home, '.kube', 'config'), env.kubeconfig.text);
    const config = await loadKubeConfig({ env: {}, homeDir: home });
    assert.deepEqual(config.source.files, [join(home, '.kube', 'config')]);
    assert.equal(await whoami(config), 'kubernetes-admin');
    await assert.rejects(loadKubeConfig({ env: {}, homeDir: join(dir, 'nowhere') }), /no configuration found: KUBECONFIG is not set/);
  });

  test('in-cluster: service host and port from the environment, token, CA and namespace from the service account', async () => {
    const sa = join(dir, 'serviceaccount');
    await mkdir(sa, { recursive: true });
    await writeFile(join(sa, 'token'), server.adminToken);
    await writeFile(join(sa, 'ca.crt'), server.caPem);
    await writeFile(join(sa, 'namespace'), 'operators\n');
    const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(server.port) };
    const config = await loadInClusterConfig({ serviceAccountDir: sa, env });
    assert.equal(config.server, server.url);
    assert.equal(config.namespace, 'operators');
    assert.equal(await whoami(config), 'kubernetes-admin');
    // loadKubeConfig picks in-cluster when there is no KUBECONFIG, even with a home config present.
    const auto = await loadKubeConfig({ env, serviceAccountDir: sa, homeDir: join(dir, 'home') });
    assert.equal(auto.source.kind, 'in-cluster');
    await assert.rejects(loadInClusterConfig({ serviceAccountDir: sa, env: {} }), /in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set/);
    await assert.rejects(loadInClusterConfig({ serviceAccountDir: join(dir, 'no-sa'), env }), /in-cluster config: tokenFile .*no-sa\/token: no such file or directory/);
  });

  test('insecure-skip-tls-verify connects without a CA; without either, the TLS failure is a plain Error', async () => {
    const insecure = await loadKubeConfig({ kubeconfigText: JSON.stringify(kubeconfig({ cluster: { server: server.url, 'insecure-skip-tls-verify': true }, user: { token: server.adminToken } })) });
    assert.equal(await whoami(insecure), 'kubernetes-admin');
    const untrusted = await loadKubeConfig({ kubeconfigText: JSON.stringify(kubeconfig({ cluster: { server: server.url }, user: { token: server.adminToken } })) });
    await assert.rejects(whoami(untrusted), (e) => e instanceof Error && !(e instanceof ApiError) && /self-signed|unable to verify|certificate/i.test(e.message));
  });

  test('tls-server-name verifies the certificate against that name instead of the URL host', async () => {
    const caData = Buffer.from(server.caPem).toString('base64');
    const good = await loadKubeConfig({
      kubeconfigText: JSON.stringify(kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': caData, 'tls-server-name': 'kubernetes.default.svc' }, user: { token: server.adminToken } })),
    });
    assert.equal(await whoami(good), 'kubernetes-admin');
    const bad = await loadKubeConfig({
      kubeconfigText: JSON.stringify(kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': caData, 'tls-server-name': 'wrong.example.com' }, user: { token: server.adminToken } })),
    });
    await assert.rejects(whoami(bad), /wrong\.example\.com/);
  });

  describe('exec credential plugins', () => {
    let plugin: string;
    let counter: string;
    let info: string;

    before(async () => {
      plugin = join(dir, 'plugin.mjs');
      counter = join(dir, 'plugin-runs');
      info = join(dir, 'plugin-exec-info');
      // Prints an ExecCredential from its env; counts its runs and records what it was given.
      await writeFile(
        plugin,
        [
          "import { appendFileSync, writeFileSync } from 'node:fs';",
          'appendFileSync(process.env.COUNTER, "run\\n");',
          'writeFileSync(process.env.INFO, JSON.stringify({ execInfo: JSON.parse(process.env.KUBERNETES_EXEC_INFO), args: process.argv.slice(2) }));',
          'const status = {};',
          'if (process.env.TOKEN) status.token = process.env.TOKEN;',
          'if (process.env.CERT_FILE) { const { readFileSync } = await import("node:fs"); status.clientCertificateData = readFileSync(process.env.CERT_FILE, "utf8"); status.clientKeyData = readFileSync(process.env.KEY_FILE, "utf8"); }',
          'if (process.env.EXPIRES_IN_MS) status.expirationTimestamp = new Date(Date.now() + Number(process.env.EXPIRES_IN_MS)).toISOString();',
          'if (process.env.FAIL) { process.stderr.write("please log in first"); process.exit(3); }',
          "process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status }));",
        ].join('\n'),
      );
    });

    async function runs(): Promise<number> {
      return (await readFile(counter, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
    }

    function execUser(env: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> {
      return {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: process.execPath,
          args: [plugin, '--flag'],
          env: Object.entries({ COUNTER: counter, INFO: info, ...env }).map(([name, value]) => ({ name, value })),
          interactiveMode: 'Never',
          ...extra,
        },
      };
    }

    test('a token from the plugin authenticates; it is cached until its expirationTimestamp', async () => {
      await rm(counter, { force: true });
      const caData = Buffer.from(server.caPem).toString('base64');
      const config = await loadKubeConfig({
        kubeconfigText: JSON.stringify(
          kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': caData }, user: execUser({ TOKEN: server.adminToken, EXPIRES_IN_MS: '3600000' }, { provideClusterInfo: true }) }),
        ),
      });
      assert.equal(config.credentials.description, `exec plugin ${process.execPath}`);
      const client = Client.fromConfig(config, { qps: Infinity });
      try {
        await client.get(Namespace, 'default');
        await client.get(Namespace, 'kube-system');
        await Promise.all([client.get(Namespace, 'default'), client.get(Namespace, 'default')]);
        assert.equal(await runs(), 1);
      } finally {
        client.close();
      }
      const seen = JSON.parse(await readFile(info, 'utf8')) as { execInfo: { apiVersion: string; kind: string; spec: { interactive: boolean; cluster?: { server: string } } }; args: string[] };
      assert.deepEqual(seen.args, ['--flag']);
      assert.equal(seen.execInfo.kind, 'ExecCredential');
      assert.equal(seen.execInfo.apiVersion, 'client.authentication.k8s.io/v1');
      assert.equal(seen.execInfo.spec.interactive, false);
      assert.equal(seen.execInfo.spec.cluster?.server, server.url);
    });

    test('an expired credential makes the plugin run again; so does a 401', async () => {
      await rm(counter, { force: true });
      const caData = Buffer.from(server.caPem).toString('base64');
      const expiring = await loadKubeConfig({
        kubeconfigText: JSON.stringify(kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': caData }, user: execUser({ TOKEN: server.adminToken, EXPIRES_IN_MS: '-1000' }) })),
      });
      const client = Client.fromConfig(expiring, { qps: Infinity });
      try {
        await client.get(Namespace, 'default');
        await client.get(Namespace, 'default');
        assert.equal(await runs(), 2);
      } finally {
        client.close();
      }
      // A token the server refuses: the plugin is asked again once, then the 401 surfaces.
      await rm(counter, { force: true });
      const refused = await loadKubeConfig({
        kubeconfigText: JSON.stringify(kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': caData }, user: execUser({ TOKEN: 'bogus' }) })),
      });
      const client2 = Client.fromConfig(refused, { qps: Infinity });
      try {
        await assert.rejects(client2.get(Namespace, 'default'), (e) => isUnauthorized(e));
        assert.equal(await runs(), 2);
      } finally {
        client2.close();
      }
    });

    test('a relative command path is resolved against the kubeconfig directory; a failing plugin names itself and its stderr', async () => {
      const sub = join(dir, 'exec-relative');
      await mkdir(join(sub, 'bin'), { recursive: true });
      const wrapper = join(sub, 'bin', 'plugin.sh');
      await writeFile(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${plugin}" "$@"\n`);
      await chmod(wrapper, 0o755);
      const caData = Buffer.from(server.caPem).toString('base64');
      const user = execUser({ TOKEN: server.adminToken });
      (user.exec as Record<string, unknown>).command = './bin/plugin.sh';
      (user.exec as Record<string, unknown>).args = [];
      const path = join(sub, 'config');
      await writeFile(path, stringify(kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': caData }, user })));
      assert.equal(await whoami(await loadKubeConfig({ path })), 'kubernetes-admin');

      const failing = execUser({ FAIL: '1' });
      await writeFile(path, stringify(kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': caData }, user: failing })));
      await assert.rejects(whoami(await loadKubeConfig({ path })), (e) => {
        assert.ok(e instanceof KubeConfigError);
        assert.match(e.message, new RegExp(`^kubeconfig ${path}: user "test": exec plugin .*: exited with code 3: please log in first$`));
        return true;
      });

      const missing = { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'no-such-plugin-xyz', installHint: 'Install it with: brew install xyz' } };
      await writeFile(path, stringify(kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': caData }, user: missing })));
      await assert.rejects(whoami(await loadKubeConfig({ path })), /exec plugin no-such-plugin-xyz: executable not found\n\nInstall it with: brew install xyz/);
    });
  });

  test('proxy-url is ignored with a warning naming the file and cluster', async () => {
    const warnings: string[] = [];
    const path = join(dir, 'with-proxy');
    const doc = kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caPem).toString('base64'), 'proxy-url': 'http://proxy:3128' }, user: { token: server.adminToken } });
    await writeFile(path, JSON.stringify(doc));
    const config = await loadKubeConfig({ path, onWarning: (w) => warnings.push(w) });
    assert.deepEqual(config.warnings, warnings);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], new RegExp(`^kubeconfig ${path}: cluster "test" sets proxy-url http://proxy:3128, which @operant/runtime does not support; connecting to https://127\\.0\\.0\\.1:\\d+ directly$`));
    assert.equal(await whoami(config), 'kubernetes-admin');
  });
});

describe('client certificates (signed by the server\'s CA)', { skip: !hasOpenssl() && 'openssl is not installed' }, () => {
  let env: TestEnv;
  let server: RunningApiServer;
  let dir: string;
  let certPem: string;
  let keyPem: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'operant-clientcert-'));
    env = await TestEnv.start();
    server = env.server;
    // A client certificate for alice in system:masters, signed by the server's CA: the process CA
    // of @operant/testing, which every environment's server serves with and trusts for clients.
    // Copied here: openssl writes its serial file beside the CA, which must stay out of the shared cache.
    const { caPem, caKey } = await processCertificates();
    assert.equal(caPem, server.caPem);
    const pki = join(dir, 'pki');
    const out = join(dir, 'certs');
    await mkdir(pki);
    await mkdir(out);
    await writeFile(join(pki, 'ca.crt'), caPem);
    await writeFile(join(pki, 'ca.key'), caKey, { mode: 0o600 });
    const run = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe' });
    run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', join(out, 'alice.key'));
    run('req', '-new', '-key', join(out, 'alice.key'), '-subj', '/O=system:masters/CN=alice', '-out', join(out, 'alice.csr'));
    await writeFile(join(out, 'ext.cnf'), 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n');
    run('x509', '-req', '-in', join(out, 'alice.csr'), '-CA', join(pki, 'ca.crt'), '-CAkey', join(pki, 'ca.key'), '-CAcreateserial', '-days', '1', '-extfile', join(out, 'ext.cnf'), '-out', join(out, 'alice.crt'));
    certPem = await readFile(join(out, 'alice.crt'), 'utf8');
    keyPem = await readFile(join(out, 'alice.key'), 'utf8');
  });
  after(async () => {
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('client-certificate and client-key files (relative paths) authenticate as the certificate subject', async () => {
    const path = join(dir, 'certs', 'kubeconfig');
    await writeFile(path, stringify(kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caPem).toString('base64') }, user: { 'client-certificate': 'alice.crt', 'client-key': './alice.key' } })));
    assert.equal(await whoami(await loadKubeConfig({ path })), 'alice');
  });

  test('client-certificate-data and client-key-data authenticate too', async () => {
    const text = JSON.stringify(
      kubeconfig({
        cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caPem).toString('base64') },
        user: { 'client-certificate-data': Buffer.from(certPem).toString('base64'), 'client-key-data': Buffer.from(keyPem).toString('base64') },
      }),
    );
    assert.equal(await whoami(await loadKubeConfig({ kubeconfigText: text })), 'alice');
  });

  test('an exec plugin may hand out a client certificate (clientCertificateData/clientKeyData)', async () => {
    const plugin = join(dir, 'cert-plugin.mjs');
    await writeFile(
      plugin,
      [
        "import { readFileSync } from 'node:fs';",
        "const status = { clientCertificateData: readFileSync(process.env.CERT_FILE, 'utf8'), clientKeyData: readFileSync(process.env.KEY_FILE, 'utf8') };",
        "process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status }));",
      ].join('\n'),
    );
    const user = {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: process.execPath,
        args: [plugin],
        env: [
          { name: 'CERT_FILE', value: join(dir, 'certs', 'alice.crt') },
          { name: 'KEY_FILE', value: join(dir, 'certs', 'alice.key') },
        ],
      },
    };
    const text = JSON.stringify(kubeconfig({ cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caPem).toString('base64') }, user }));
    assert.equal(await whoami(await loadKubeConfig({ kubeconfigText: text })), 'alice');
  });
});

describe('basic auth and impersonation headers', () => {
  test('username/password go out as Basic auth and as/as-groups as Impersonate-* headers (plain HTTP server)', async () => {
    let seen: IncomingHttpHeaders | undefined;
    const http = createServer((req, res) => {
      seen = req.headers;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'default' } }));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const config = await loadKubeConfig({
        kubeconfigText: stringify(kubeconfig({ cluster: { server: url }, user: { username: 'bob', password: 's3cret', as: 'carol', 'as-groups': ['g1', 'g2'], 'as-user-extra': { 'scopes.example/x': ['a'] } } })),
      });
      const client = Client.fromConfig(config, { qps: Infinity, userAgent: 'test-agent/1' });
      await client.get(Namespace, 'default');
      client.close();
      assert.equal(seen?.authorization, `Basic ${Buffer.from('bob:s3cret').toString('base64')}`);
      assert.equal(seen?.['impersonate-user'], 'carol');
      assert.equal(seen?.['impersonate-group'], 'g1, g2');
      assert.equal(seen?.['impersonate-extra-scopes.example%2fx'], 'a');
      assert.equal(seen?.['user-agent'], 'test-agent/1');
    } finally {
      http.close();
    }
  });
});

describe('kubeconfig errors name the file and what is wrong', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'operant-kubeconfig-errors-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function loadingFails(doc: unknown, expected: RegExp, options: { context?: string } = {}): Promise<void> {
    const path = join(dir, `config-${Math.random().toString(36).slice(2)}`);
    await writeFile(path, typeof doc === 'string' ? doc : stringify(doc));
    await assert.rejects(loadKubeConfig({ path, ...options }), (e) => {
      assert.ok(e instanceof KubeConfigError, String(e));
      assert.equal(e.source, `kubeconfig ${path}`);
      assert.match(e.message, new RegExp(`^kubeconfig ${path}: ${expected.source}`));
      return true;
    });
  }

  test('missing file, bad YAML, wrong shapes', async () => {
    await assert.rejects(loadKubeConfig({ path: join(dir, 'missing') }), new RegExp(`kubeconfig ${dir}/missing: no such file or directory`));
    await loadingFails('clusters: [unclosed', /not valid YAML/);
    // One line, the position first (before: the yaml package's message, then the source line and a caret on lines of their own).
    await loadingFails('apiVersion: v1\nclusters:\n- name: c\n  bad: [\n', /not valid YAML at line 5, column 1: Flow sequence in block collection must be sufficiently indented and end with a \]$/);
    await loadingFails('- just\n- a list\n', /must be a mapping \(a Config object\), got a list/);
    await loadingFails({ clusters: { a: 1 } }, /clusters must be a list, got a mapping/);
    await loadingFails({ clusters: [{ cluster: {} }] }, /clusters\[0\] must have a non-empty string name/);
    await loadingFails({ clusters: [{ name: 'c', cluster: { 'insecure-skip-tls-verify': 'yes' } }] }, /clusters\["c"\]\.cluster\.insecure-skip-tls-verify must be true or false, got string "yes"/);
  });

  test('contexts, clusters and users that are not there', async () => {
    const base = kubeconfig({ cluster: { server: 'https://127.0.0.1:6443' }, user: { token: 't' } });
    await loadingFails({ ...base, 'current-context': '' }, /no current-context is set and no context was chosen; choose one of: test/);
    await loadingFails(base, /context "prod" not found \(contexts: test\)/, { context: 'prod' });
    await loadingFails({ ...base, clusters: [] }, /context "test" refers to cluster "test", which is not defined/);
    await loadingFails({ ...base, users: [] }, /context "test" refers to user "test", which is not defined/);
    await loadingFails(kubeconfig({ cluster: {}, user: { token: 't' } }), /cluster "test" has no server/);
    await loadingFails(kubeconfig({ cluster: { server: 'ftp://x' }, user: { token: 't' } }), /cluster "test"\.server "ftp:\/\/x" must be an https:\/\/ \(or http:\/\/\) URL/);
  });

  test('unreadable or contradictory credentials', async () => {
    const server = { server: 'https://127.0.0.1:6443' };
    await loadingFails(kubeconfig({ cluster: { ...server, 'certificate-authority': 'nope/ca.crt' } }), new RegExp(`cluster "test"\\.certificate-authority ${dir}/nope/ca\\.crt: no such file or directory`));
    await loadingFails(kubeconfig({ cluster: { ...server, 'certificate-authority-data': 'bm90IHBlbQ==' } }), /cluster "test"\.certificate-authority-data is not base64-encoded PEM/);
    await loadingFails(kubeconfig({ cluster: { ...server, 'insecure-skip-tls-verify': true, 'certificate-authority-data': Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64') } }), /cluster "test": insecure-skip-tls-verify cannot be combined with certificate-authority/);
    await loadingFails(kubeconfig({ cluster: server, user: { token: 't', username: 'u', password: 'p' } }), /user "test" has more than one authentication method \(token, basic auth \(username\/password\)\); only one is allowed/);
    await loadingFails(kubeconfig({ cluster: server, user: { 'auth-provider': { name: 'gcp' } } }), /user "test"\.auth-provider "gcp" is not supported .*use an exec credential plugin/);
    await loadingFails(kubeconfig({ cluster: server, user: { 'client-certificate-data': Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64') } }), /user "test": client-certificate\(-data\) and client-key\(-data\) must be set together/);
    await loadingFails(kubeconfig({ cluster: server, user: { exec: { command: 'x' } } }), /user "test": exec plugin: invalid apiVersion ""/);
    await loadingFails(kubeconfig({ cluster: server, user: { exec: { apiVersion: 'client.authentication.k8s.io/v1' } } }), /users\["test"\]\.user\.exec\.command is required/);
  });

  test('a KUBECONFIG naming no existing file', async () => {
    await assert.rejects(loadKubeConfig({ env: { KUBECONFIG: join(dir, 'a') } }), /KUBECONFIG: none of its files exists/);
  });
});

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}
