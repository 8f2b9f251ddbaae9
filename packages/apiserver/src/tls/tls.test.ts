import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import {
  type CertificateAndKey,
  generateCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
} from './certificates.js';
import { kubeconfigText, writeKubeconfig } from './kubeconfig.js';
import { loadOrCreateServingMaterial } from './material.js';

const KUBECTL = '/usr/bin/kubectl';
const VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0' };
const HOSTS = { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] };

interface SeenRequest {
  path: string;
  authorization: string | undefined;
  /** Subject of a verified client certificate, as Node reports it (repeated attributes become arrays). */
  clientSubject: Record<string, string | string[] | undefined> | undefined;
}

/** Starts an HTTPS server that answers /version and records every request. */
async function startServer(
  serving: CertificateAndKey,
  extra: https.ServerOptions = {},
): Promise<{ port: number; seen: SeenRequest[]; server: https.Server }> {
  const seen: SeenRequest[] = [];
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem, ...extra }, (req, res) => {
    const socket = req.socket as TLSSocket;
    const clientSubject = socket.authorized ? { ...socket.getPeerCertificate().subject } : undefined;
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization, clientSubject });
    if (req.url === '/version') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(VERSION));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, seen, server };
}

function get(options: https.RequestOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get({ ...options, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('certificates', () => {
  let ca: CertificateAndKey;
  let serving: CertificateAndKey;
  let port: number;
  let server: https.Server;
  let seen: SeenRequest[];
  let dir: string;

  before(async () => {
    const t0 = performance.now();
    ca = await generateCertificateAuthority();
    const t1 = performance.now();
    serving = await issueServingCertificate(ca, HOSTS);
    const t2 = performance.now();
    console.log(`timing: CA ${(t1 - t0).toFixed(1)} ms, serving certificate ${(t2 - t1).toFixed(1)} ms`);
    ({ port, server, seen } = await startServer(serving));
    dir = await mkdtemp(join(tmpdir(), 'operant-tls-'));
  });
  after(async () => {
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('issues a CA and a serving certificate with the expected fields', () => {
    const caCert = new X509Certificate(ca.certPem);
    const cert = new X509Certificate(serving.certPem);
    assert.equal(caCert.ca, true);
    assert.equal(cert.ca, false);
    assert.ok(cert.checkIssued(caCert));
    assert.ok(cert.verify(caCert.publicKey));
    assert.equal(cert.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1');
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    const days = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
    assert.ok(days > 364 && days <= 366, `serving certificate valid for ${days} days`);
  });

  it('rejects a serving certificate without names', async () => {
    await assert.rejects(issueServingCertificate(ca, { dnsNames: [], ipAddresses: [] }), /at least one/);
    await assert.rejects(issueServingCertificate(ca, { dnsNames: [], ipAddresses: ['localhost'] }), /not an IP/);
  });

  for (const host of ['localhost', '127.0.0.1']) {
    it(`is trusted by Node's https client at ${host} given only the CA`, async () => {
      const res = await get({ host, port, path: '/version', ca: ca.certPem });
      assert.equal(res.status, 200);
      assert.deepEqual(JSON.parse(res.body), VERSION);
    });
  }

  it('is rejected by a client trusting another CA', async () => {
    const other = await generateCertificateAuthority();
    await assert.rejects(get({ host: 'localhost', port, path: '/version', ca: other.certPem }), {
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  });

  it('issues client certificates read as CN = user, O = groups', async () => {
    const client = await issueClientCertificate(ca, {
      commonName: 'alice',
      organizations: ['system:masters', 'dev,ops'],
    });
    const mtls = await startServer(serving, { ca: ca.certPem, requestCert: true, rejectUnauthorized: true });
    try {
      const res = await get({
        host: 'localhost',
        port: mtls.port,
        path: '/version',
        ca: ca.certPem,
        cert: client.certPem,
        key: client.keyPem,
      });
      assert.equal(res.status, 200);
      assert.deepEqual(mtls.seen[0]?.clientSubject, { O: ['system:masters', 'dev,ops'], CN: 'alice' });
      const cert = new X509Certificate(client.certPem);
      assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    } finally {
      mtls.server.close();
    }
  });

  for (const host of ['127.0.0.1', 'localhost']) {
    it(`is accepted by the real kubectl at ${host} with a written kubeconfig and bearer token`, async (t) => {
      if (!existsSync(KUBECTL)) {
        t.skip('kubectl not found at /usr/bin/kubectl');
        return;
      }
      const token = 'test-token-abc';
      const path = join(dir, host, 'kubeconfig');
      await writeKubeconfig(path, kubeconfigText({ server: `https://${host}:${port}`, caPem: ca.certPem, token }));
      seen.length = 0;
      const { stdout } = await promisify(execFile)(KUBECTL, ['--kubeconfig', path, 'get', '--raw', '/version'], {
        timeout: 30_000,
        // A private HOME keeps kubectl's discovery cache out of the user's ~/.kube.
        env: { ...process.env, HOME: dir },
      });
      assert.deepEqual(JSON.parse(stdout), VERSION);
      // The /usr/bin/kubectl dispatcher asks /version itself before running the matching client.
      t.diagnostic(`kubectl requested: ${seen.map((r) => r.path).join(', ')}`);
      assert.ok(seen.some((r) => r.path === '/version'));
      for (const r of seen) assert.equal(r.authorization, `Bearer ${token}`, `Authorization on ${r.path}`);
    });
  }
});

describe('kubeconfig', () => {
  it('renders a kubeconfig with the CA, token and current context', () => {
    const yaml = kubeconfigText({ server: 'https://127.0.0.1:6443', caPem: 'PEM', token: 'yes' });
    const config = parse(yaml) as Record<string, unknown>;
    assert.deepEqual(config, {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'operant', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': 'UEVN' } },
      ],
      users: [{ name: 'operant', user: { token: 'yes' } }],
      contexts: [{ name: 'operant', context: { cluster: 'operant', user: 'operant', namespace: 'default' } }],
      'current-context': 'operant',
      preferences: {},
    });
    // Go's YAML 1.1 parser would read a bare `yes` as a boolean.
    assert.match(yaml, /"token": "yes"/);
  });

  it('writes atomically with mode 0600, replacing an existing file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'operant-kubeconfig-'));
    try {
      const path = join(dir, 'a', 'b', 'config');
      await writeKubeconfig(path, 'one');
      await writeKubeconfig(path, 'two');
      assert.equal(await readFile(path, 'utf8'), 'two');
      assert.equal((await stat(path)).mode & 0o777, 0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('loadOrCreateServingMaterial', () => {
  it('creates material in memory without a directory', async () => {
    const m = await loadOrCreateServingMaterial(undefined, HOSTS);
    assert.match(m.adminToken, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(new X509Certificate(m.serving.certPem).checkIssued(new X509Certificate(m.ca.certPem)));
  });

  it('writes material once and reuses it on restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'operant-pki-'));
    try {
      const t0 = performance.now();
      const first = await loadOrCreateServingMaterial(dir, HOSTS);
      const t1 = performance.now();
      const second = await loadOrCreateServingMaterial(dir, HOSTS);
      const t2 = performance.now();
      console.log(`timing: create ${(t1 - t0).toFixed(1)} ms, reuse ${(t2 - t1).toFixed(1)} ms`);
      assert.deepEqual(second, first);
      assert.match(first.adminToken, /^[A-Za-z0-9_-]{43}$/);
      const pki = join(dir, 'pki');
      for (const [file, mode] of [
        // Everything in a data dir is 0600, certificates too (the dir's files are fixed to that at start).
        ['ca.crt', 0o600],
        ['ca.key', 0o600],
        ['apiserver.crt', 0o600],
        ['apiserver.key', 0o600],
        ['admin-token', 0o600],
      ] as const) {
        assert.equal((await stat(join(pki, file))).mode & 0o777, mode, file);
      }
      assert.equal(await readFile(join(pki, 'admin-token'), 'utf8'), first.adminToken);

      // New host: same CA and token, new serving certificate covering it.
      const third = await loadOrCreateServingMaterial(dir, {
        dnsNames: ['localhost', 'operant.local'],
        ipAddresses: ['127.0.0.1'],
      });
      assert.deepEqual(third.ca, first.ca);
      assert.equal(third.adminToken, first.adminToken);
      assert.notEqual(third.serving.certPem, first.serving.certPem);
      assert.ok(new X509Certificate(third.serving.certPem).checkHost('operant.local'));
      assert.equal(await readFile(join(pki, 'apiserver.crt'), 'utf8'), third.serving.certPem);

      // A damaged serving key is replaced; a missing CA key is an error, not a silent new CA.
      await writeFile(join(pki, 'apiserver.key'), 'garbage');
      const fourth = await loadOrCreateServingMaterial(dir, HOSTS);
      assert.deepEqual(fourth.ca, first.ca);
      assert.notEqual(fourth.serving.keyPem, 'garbage');
      await rm(join(pki, 'ca.key'));
      await assert.rejects(loadOrCreateServingMaterial(dir, HOSTS), /ca\.key is missing/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
