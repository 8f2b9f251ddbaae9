/**
 * Generated certificates in real TLS handshakes: a client trusting only the
 * CA accepts the server for each name it was issued for and rejects others;
 * ensureLocalCertificates keeps the CA across runs and renews only what needs it.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type Server } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { generateServingCertificate } from './generate.js';
import { ensureLocalCertificates } from './local.js';
import { DAY_MS } from './x509.js';

async function listen(cert: string, key: string, host: string): Promise<Server> {
  const server = createServer({ cert, key }, (socket) => socket.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return server;
}

/**
 * Handshakes trusting only `ca`; Node verifies the certificate against the
 * name (servername) or the IP address connected to, as Go clients do.
 */
function handshake(host: string, port: number, ca: string, servername?: string): Promise<{ authorized: boolean; error?: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, ca, servername });
    socket.on('secureConnect', () => {
      resolve({ authorized: socket.authorized });
      socket.destroy();
    });
    socket.on('error', (e: Error & { code?: string }) => resolve({ authorized: false, error: e.code ?? e.message }));
  });
}

async function ipv6Available(): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => probe.close(() => resolve(true)));
  });
}

describe('generateServingCertificate', () => {
  test('a client trusting only the CA accepts the server as localhost, 127.0.0.1 and ::1 (when the host has IPv6), and rejects other names and CAs', async () => {
    const certs = await generateServingCertificate();
    const server = await listen(certs.cert, certs.key, '127.0.0.1');
    try {
      const { port } = server.address() as AddressInfo;
      assert.deepEqual(await handshake('127.0.0.1', port, certs.caPem, 'localhost'), { authorized: true });
      assert.deepEqual(await handshake('127.0.0.1', port, certs.caPem), { authorized: true });
      const wrongName = await handshake('127.0.0.1', port, certs.caPem, 'example.com');
      assert.equal(wrongName.error, 'ERR_TLS_CERT_ALTNAME_INVALID');
      const other = await generateServingCertificate();
      const wrongCA = await handshake('127.0.0.1', port, other.caPem, 'localhost');
      assert.deepEqual(wrongCA, { authorized: false, error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    } finally {
      server.close();
    }
    if (await ipv6Available()) {
      const server6 = await listen(certs.cert, certs.key, '::1');
      try {
        assert.deepEqual(await handshake('::1', (server6.address() as AddressInfo).port, certs.caPem), { authorized: true });
      } finally {
        server6.close();
      }
    }
  });

  test("a Service's DNS names are added as SANs; the CA is a CA and the leaf is not", async () => {
    const certs = await generateServingCertificate({ service: { name: 'webhook', namespace: 'system' }, validityDays: 30 });
    const leaf = new X509Certificate(certs.cert);
    for (const name of ['webhook', 'webhook.system', 'webhook.system.svc', 'webhook.system.svc.cluster.local', 'localhost']) {
      assert.equal(leaf.checkHost(name, { wildcards: false }), name, `${name} in ${leaf.subjectAltName}`);
    }
    assert.ok(leaf.checkIP('127.0.0.1'));
    assert.ok(leaf.checkIP('::1'));
    assert.equal(leaf.ca, false);
    const ca = new X509Certificate(certs.caPem);
    assert.equal(ca.ca, true);
    assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
    const days = (certs.notAfter.getTime() - Date.now()) / DAY_MS;
    assert.ok(days > 29.9 && days <= 30.01, `valid for ${days} days`);
    assert.ok(leaf.checkPrivateKey((await import('node:crypto')).createPrivateKey(certs.key)));
  });

  test('explicit names replace the defaults; a given CA signs the new leaf', async () => {
    const first = await generateServingCertificate();
    const second = await generateServingCertificate({ dnsNames: ['webhook.test'], ipAddresses: ['10.0.0.7'], ca: { cert: first.caPem, key: first.caKey } });
    assert.equal(second.caPem, first.caPem);
    const leaf = new X509Certificate(second.cert);
    assert.ok(leaf.verify(new X509Certificate(first.caPem).publicKey));
    assert.equal(leaf.checkHost('webhook.test'), 'webhook.test');
    assert.equal(leaf.checkHost('localhost'), undefined);
    assert.ok(leaf.checkIP('10.0.0.7'));
    assert.equal(leaf.checkIP('127.0.0.1'), undefined);
    assert.notEqual(leaf.serialNumber, new X509Certificate(first.cert).serialNumber);
    await assert.rejects(generateServingCertificate({ ipAddresses: ['not-an-ip'] }), /not an IP address: "not-an-ip"/);
    await assert.rejects(generateServingCertificate({ dnsNames: [], ipAddresses: [] }), /at least one DNS name or IP address/);
  });
});

describe('ensureLocalCertificates', () => {
  const dirs: string[] = [];
  const tempDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'operant-local-certs-'));
    dirs.push(dir);
    return join(dir, 'certs');
  };
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  test('creates the CA and pair once and reuses them on the next run', async () => {
    const dir = await tempDir();
    const first = await ensureLocalCertificates(dir);
    assert.deepEqual([...first.created].sort(), ['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    assert.deepEqual((await readdir(dir)).sort(), ['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    assert.equal(await readFile(join(dir, 'ca.crt'), 'utf8'), first.caPem);
    assert.equal(await readFile(join(dir, 'tls.key'), 'utf8'), first.key);

    const second = await ensureLocalCertificates(dir);
    assert.deepEqual(second.created, []);
    assert.equal(second.caPem, first.caPem);
    assert.equal(second.cert, first.cert);
    assert.equal(second.key, first.key);
  });

  test('renews a leaf that expires soon or lacks a name, keeping the CA (and so the caBundle)', async () => {
    const dir = await tempDir();
    const short = await ensureLocalCertificates(dir, { validityDays: 10 });
    const renewed = await ensureLocalCertificates(dir);
    assert.deepEqual([...renewed.created].sort(), ['tls.crt', 'tls.key']);
    assert.equal(renewed.caPem, short.caPem);
    assert.notEqual(renewed.cert, short.cert);
    assert.ok(renewed.notAfter.getTime() - Date.now() > 300 * DAY_MS);

    const withService = await ensureLocalCertificates(dir, { service: { name: 'webhook', namespace: 'system' } });
    assert.deepEqual([...withService.created].sort(), ['tls.crt', 'tls.key']);
    assert.equal(withService.caPem, short.caPem);
    assert.equal(new X509Certificate(withService.cert).checkHost('webhook.system.svc'), 'webhook.system.svc');
    assert.deepEqual((await ensureLocalCertificates(dir, { service: { name: 'webhook', namespace: 'system' } })).created, []);
  });

  test('a broken CA is replaced, and the pair with it', async () => {
    const dir = await tempDir();
    const first = await ensureLocalCertificates(dir);
    await writeFile(join(dir, 'ca.key'), 'garbage');
    const second = await ensureLocalCertificates(dir);
    assert.deepEqual([...second.created].sort(), ['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    assert.notEqual(second.caPem, first.caPem);
    assert.ok(new X509Certificate(second.cert).verify(new X509Certificate(second.caPem).publicKey));
  });
});
