/**
 * `startApiServer({ servingMaterial })`: the server serves the caller's CA and
 * certificate instead of making its own, trusts client certificates of that
 * CA, keeps the admin token (but no certificates) in a data dir, and refuses a pair that
 * cannot serve with an error that says why.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { before, describe, it } from 'node:test';
import { startApiServer } from '../server.js';
import { type CertificateAndKey, generateCertificateAuthority, issueClientCertificate, issueServingCertificate } from './certificates.js';
import type { ProvidedServingMaterial } from './material.js';

interface Answer {
  status: number;
  body: string;
  /** The DER of the certificate the server presented. */
  served: Buffer;
}

/** A GET verified against `caPem`, with a bearer token or a client certificate. */
function get(url: string, caPem: string, auth: { token: string } | { client: CertificateAndKey }): Promise<Answer> {
  const credentials = 'token' in auth ? { headers: { authorization: `Bearer ${auth.token}` } } : { cert: auth.client.certPem, key: auth.client.keyPem };
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: caPem, agent: false, ...credentials }, (res) => {
        const served = (res.socket as TLSSocket).getPeerCertificate().raw;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, served }));
      })
      .on('error', reject);
  });
}

describe('startApiServer with servingMaterial', () => {
  let ca: CertificateAndKey;
  let material: ProvidedServingMaterial;
  before(async () => {
    ca = await generateCertificateAuthority('provided-ca');
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    material = { caPem: ca.certPem, certPem: serving.certPem, keyPem: serving.keyPem };
  });

  it('serves the given certificate, hands out its CA, and trusts client certificates the CA signed', async () => {
    const server = await startApiServer({ port: 0, servingMaterial: material });
    try {
      assert.equal(server.caPem, material.caPem);
      const kubeconfig = JSON.parse(server.kubeconfig) as { clusters: Array<{ cluster: Record<string, string> }> };
      assert.equal(Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data']!, 'base64').toString(), material.caPem);
      const byToken = await get(`${server.url}/api/v1/namespaces`, material.caPem, { token: server.adminToken });
      assert.equal(byToken.status, 200);
      assert.deepEqual(byToken.served, new X509Certificate(material.certPem).raw);

      const admin = await issueClientCertificate(ca, { commonName: 'alice', organizations: ['system:masters'] });
      const byCertificate = await get(`${server.url}/api/v1/namespaces`, material.caPem, { client: admin });
      assert.equal(byCertificate.status, 200, byCertificate.body);
      const other = await generateCertificateAuthority('other-ca');
      const stranger = await issueClientCertificate(other, { commonName: 'mallory', organizations: ['system:masters'] });
      assert.equal((await get(`${server.url}/api/v1/namespaces`, material.caPem, { client: stranger })).status, 401);
    } finally {
      await server.stop();
    }
  });

  it('keeps the admin token in a data dir, the same across restarts, and writes no certificates there', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'operant-provided-'));
    try {
      const first = await startApiServer({ port: 0, dataDir, servingMaterial: material });
      await first.stop();
      const second = await startApiServer({ port: 0, dataDir, servingMaterial: material });
      try {
        assert.equal(second.adminToken, first.adminToken);
        assert.equal((await get(`${second.url}/api/v1/namespaces`, material.caPem, { token: first.adminToken })).status, 200);
        const kept = await readdir(join(dataDir, 'pki'));
        assert.ok(kept.includes('admin-token'), kept.join(' '));
        for (const made of ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key']) assert.equal(kept.includes(made), false, `${made} was written`);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a pair that cannot serve, saying why', async () => {
    const other = await generateCertificateAuthority('other-ca');
    const foreign = await issueServingCertificate(other, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const elsewhere = await issueServingCertificate(ca, { dnsNames: ['api.example.test'], ipAddresses: [] });
    const cases: Array<[ProvidedServingMaterial, RegExp]> = [
      [{ ...material, certPem: foreign.certPem, keyPem: foreign.keyPem }, /^Error: servingMaterial: certPem was not issued by caPem$/],
      [{ ...material, keyPem: foreign.keyPem }, /^Error: servingMaterial: keyPem is not the key of certPem$/],
      [{ ...material, certPem: elsewhere.certPem, keyPem: elsewhere.keyPem }, /^Error: servingMaterial: certPem does not cover 127\.0\.0\.1, the address the server is reached at$/],
      [{ ...material, certPem: 'not a certificate' }, /^Error: servingMaterial: cannot parse the certificates or key: /],
    ];
    for (const [given, message] of cases) {
      await assert.rejects(startApiServer({ port: 0, servingMaterial: given }), (err: unknown) => message.test(String(err)));
    }
    const dataDir = await mkdtemp(join(tmpdir(), 'operant-provided-'));
    try {
      await assert.rejects(startApiServer({ port: 0, dataDir, servingMaterial: { ...material, keyPem: foreign.keyPem } }), /keyPem is not the key/);
      assert.equal(existsSync(join(dataDir, 'pki')), false, 'nothing is written before the material is accepted');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
