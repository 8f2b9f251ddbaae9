/**
 * The CSR signing controllers the server runs for the kubernetes.io signers
 * (kube-controller-manager's csrsigning-*): an approved request gets a
 * certificate from the cluster CA that then authenticates to the server; a
 * request its signer's rules refuse gets `Failed` / `SignerValidationFailure`
 * in kube's words; nothing else is touched. The real kubectl walks the
 * documented "a certificate for a new user" flow.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey, webcrypto } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { TestApi, type Json, type WatchStream } from './support/api-client.js';

const KUBECTL = '/usr/bin/kubectl';
const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');

interface KeyAndRequest {
  keyPem: string;
  requestPem: string;
}

/** A fresh P-256 key and a PKCS#10 request for `subject`, with `names` as subjectAltNames. */
async function keyAndRequest(subject: x509.JsonName, names: x509.JsonGeneralName[] = []): Promise<KeyAndRequest> {
  const keys = await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys,
    signingAlgorithm: ecdsa,
    extensions: names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : [],
  });
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').match(/.{1,64}/g)?.join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { keyPem, requestPem: request.toString('pem') };
}

/** The credential id kube 1.32 gives a client certificate's user: the certificate's SHA-256. */
const credentialId = (cert: X509Certificate): Json => ({
  'authentication.kubernetes.io/credential-id': [`X509SHA256=${cert.fingerprint256.replaceAll(':', '').toLowerCase()}`],
});

function csr(name: string, requestPem: string, signerName: string, usages: string[], extra: Json = {}): Json {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: b64(requestPem), signerName, usages, ...extra },
  };
}

describe('CSR signing (the kubernetes.io signers)', () => {
  let api: TestApi;
  let watch: WatchStream;
  let ca: X509Certificate;
  before(async () => {
    api = await TestApi.start();
    ca = new X509Certificate(api.server.caPem);
    watch = await api.watch(`${csrs}?watch=true`);
  });
  after(async () => {
    watch?.close();
    await api?.stop();
  });

  const approve = (name: string): Promise<Json> =>
    api.ok('PUT', `${csrs}/${name}/approval`, {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] },
    });

  /** The CSR `name` once the signer has answered it: issued or failed. */
  async function answered(name: string): Promise<Json> {
    const done = (o: Json): boolean => o.status?.certificate !== undefined || (o.status?.conditions ?? []).some((c: Json) => c.type === 'Failed');
    const events = await watch.until((e) => e.object.metadata?.name === name && done(e.object));
    return events[events.length - 1].object;
  }

  const issued = (o: Json): X509Certificate => new X509Certificate(Buffer.from(o.status.certificate, 'base64'));

  it('issues a kube-apiserver-client certificate from the cluster CA, which authenticates as its CN and O', async () => {
    const jane = await keyAndRequest([{ CN: ['jane'] }, { O: ['dev', 'ops'] }]);
    const request = csr('jane', jane.requestPem, 'kubernetes.io/kube-apiserver-client', ['client auth', 'digital signature'], { expirationSeconds: 3600 });
    // A label, so that the object's fields are tracked from its create (spec and status are reset fields).
    request.metadata.labels = { team: 'dev' };
    await api.ok('POST', csrs, request, 201);
    const before = Date.now();
    await approve('jane');
    const done = await answered('jane');
    const cert = issued(done);
    assert.match(Buffer.from(done.status.certificate, 'base64').toString(), /^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n$/);
    assert.ok(cert.verify(ca.publicKey), 'signed by the cluster CA');
    assert.equal(cert.issuer, ca.subject);
    // One RDN per attribute type, as Go's pkix.Name writes the request's subject back.
    assert.equal(cert.subject, 'O=dev + O=ops\nCN=jane');
    assert.equal(cert.ca, false);
    assert.ok(cert.checkPrivateKey(createPrivateKey(jane.keyPem)), "the request's own key");
    // Backdated 5 minutes; one hour is short (< 8 h), so its end is not backdated.
    const notBefore = Date.parse(cert.validFrom);
    const notAfter = Date.parse(cert.validTo);
    assert.ok(Math.abs(notBefore - (before - 5 * 60_000)) < 60_000, `notBefore ${cert.validFrom}`);
    assert.ok(Math.abs(notAfter - (before + 3_600_000)) < 60_000, `notAfter ${cert.validTo}`);
    const parsed = new x509.X509Certificate(cert.raw);
    assert.deepEqual([...(parsed.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [])], [x509.ExtendedKeyUsage.clientAuth]);
    assert.equal(parsed.getExtension(x509.KeyUsagesExtension)?.usages, x509.KeyUsageFlags.digitalSignature);
    // The Approved condition stays as the approver left it; the signer adds none.
    assert.deepEqual(done.status.conditions.map((c: Json) => c.type), ['Approved']);
    const stored = await api.ok('GET', `${csrs}/jane`);
    // The signer owns the certificate it wrote through status; the approver the conditions (kube's reset fields).
    const owners = Object.fromEntries(stored.metadata.managedFields.map((m: Json) => [m.subresource ?? '', [m.manager, m.fieldsV1]]));
    assert.deepEqual(owners.status, ['kube-controller-manager', { 'f:status': { 'f:certificate': {} } }]);
    assert.deepEqual(Object.keys(owners.approval[1]['f:status']), ['f:conditions']);

    // The certificate is a credential of this server.
    const review = await new Promise<Json>((resolve, reject) => {
      const req = https.request(new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', api.server.url), {
        method: 'POST',
        ca: api.server.caPem,
        cert: Buffer.from(done.status.certificate, 'base64'),
        key: jane.keyPem,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
    });
    assert.deepEqual(review.status.userInfo, { username: 'jane', groups: ['dev', 'ops', 'system:authenticated'], extra: credentialId(cert) });
  });

  it("marks a request its signer's rules refuse Failed, in kube's words, and issues nothing", async () => {
    const cases: Array<[name: string, signer: string, usages: string[], subject: x509.JsonName, names: x509.JsonGeneralName[], message: string]> = [
      ['server-usage', 'kubernetes.io/kube-apiserver-client', ['client auth', 'server auth'], [{ CN: ['x'] }], [], 'invalid usage for client certificate: server auth'],
      ['no-client-auth', 'kubernetes.io/kube-apiserver-client', ['digital signature'], [{ CN: ['x'] }], [], 'missing required usage for client certificate: client auth'],
      ['serving-no-san', 'kubernetes.io/kubelet-serving', ['digital signature', 'server auth'], [{ O: ['system:nodes'] }, { CN: ['system:node:n1'] }], [], 'DNS or IP subjectAltName is required'],
      ['serving-org', 'kubernetes.io/kubelet-serving', ['digital signature', 'server auth'], [{ CN: ['system:node:n1'] }], [{ type: 'dns', value: 'n1' }], 'subject organization is not system:nodes'],
      ['serving-usages', 'kubernetes.io/kubelet-serving', ['server auth'], [{ O: ['system:nodes'] }, { CN: ['system:node:n1'] }], [{ type: 'dns', value: 'n1' }], 'usages did not match [digital signature key encipherment server auth]'],
      ['serving-cn', 'kubernetes.io/kubelet-serving', ['digital signature', 'server auth'], [{ O: ['system:nodes'] }, { CN: ['n1'] }], [{ type: 'ip', value: '10.0.0.1' }], 'subject common name does not begin with system:node:'],
      ['kubelet-client-ip', 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth'], [{ O: ['system:nodes'] }, { CN: ['system:node:n1'] }], [{ type: 'ip', value: '10.0.0.1' }], 'IP subjectAltNames are not allowed'],
      ['kubelet-client-usages', 'kubernetes.io/kube-apiserver-client-kubelet', ['client auth'], [{ O: ['system:nodes'] }, { CN: ['system:node:n1'] }], [], 'usages did not match [client auth digital signature key encipherment]'],
    ];
    for (const [name, signer, usages, subject, names, message] of cases) {
      const { requestPem } = await keyAndRequest(subject, names);
      await api.ok('POST', csrs, csr(name, requestPem, signer, usages), 201);
      await approve(name);
      const done = await answered(name);
      assert.equal(done.status.certificate, undefined, name);
      const failed = done.status.conditions.find((c: Json) => c.type === 'Failed');
      assert.deepEqual({ status: failed.status, reason: failed.reason, message: failed.message }, { status: 'True', reason: 'SignerValidationFailure', message }, name);
      assert.ok(failed.lastUpdateTime && failed.lastTransitionTime, name);
    }
  });

  it('signs kubelet serving and kubelet client requests that follow the rules, with their names', async () => {
    const serving = await keyAndRequest([{ O: ['system:nodes'] }, { CN: ['system:node:n1'] }], [{ type: 'dns', value: 'n1.example' }, { type: 'ip', value: '10.0.0.7' }]);
    await api.ok('POST', csrs, csr('serving', serving.requestPem, 'kubernetes.io/kubelet-serving', ['key encipherment', 'digital signature', 'server auth']), 201);
    await approve('serving');
    const cert = issued(await answered('serving'));
    assert.equal(cert.subjectAltName, 'DNS:n1.example, IP Address:10.0.0.7');
    // No expirationSeconds: the signer's maximum, a year, less the backdate.
    const lifetime = Date.parse(cert.validTo) - Date.parse(cert.validFrom);
    assert.ok(Math.abs(lifetime - 8760 * 3_600_000) < 60_000, `${cert.validFrom} .. ${cert.validTo}`);

    const client = await keyAndRequest([{ O: ['system:nodes'] }, { CN: ['system:node:n1'] }]);
    await api.ok('POST', csrs, csr('kubelet-client', client.requestPem, 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth'], { expirationSeconds: 10 * 365 * 86400 }), 201);
    await approve('kubelet-client');
    const clientCert = issued(await answered('kubelet-client'));
    // Asking for ten years gets the maximum.
    const clientLifetime = Date.parse(clientCert.validTo) - Date.parse(clientCert.validFrom);
    assert.ok(Math.abs(clientLifetime - 8760 * 3_600_000) < 60_000, `${clientCert.validFrom} .. ${clientCert.validTo}`);
  });

  it('leaves pending, denied and other signers\' requests alone', async () => {
    const { requestPem } = await keyAndRequest([{ CN: ['x'] }]);
    await api.ok('POST', csrs, csr('pending', requestPem, 'kubernetes.io/kube-apiserver-client', ['client auth']), 201);
    await api.ok('POST', csrs, csr('other-signer', requestPem, 'example.com/signer', ['client auth']), 201);
    await approve('other-signer');
    await api.ok('POST', csrs, csr('denied', requestPem, 'kubernetes.io/kube-apiserver-client', ['client auth']), 201);
    await api.ok('PUT', `${csrs}/denied/approval`, {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'denied' },
      status: { conditions: [{ type: 'Denied', status: 'True', reason: 'Test' }] },
    });
    // A request approved after them: once it is issued, the signer has been through the others too.
    await api.ok('POST', csrs, csr('last', requestPem, 'kubernetes.io/kube-apiserver-client', ['client auth']), 201);
    await approve('last');
    await answered('last');
    for (const name of ['pending', 'other-signer', 'denied']) {
      const o = await api.ok('GET', `${csrs}/${name}`);
      assert.equal(o.status.certificate, undefined, name);
      assert.ok(!(o.status.conditions ?? []).some((c: Json) => c.type === 'Failed'), name);
    }
  });

  it('a new user with the real kubectl: create, `certificate approve`, Issued, then `auth whoami` with the certificate', { skip: !existsSync(KUBECTL) && 'kubectl not found at /usr/bin/kubectl' }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'csr-kubectl-'));
    try {
      const kubeconfig = (user: Json): Json => ({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: api.server.url, 'certificate-authority-data': b64(api.server.caPem) } }],
        users: [{ name: 'u', user }],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'c',
      });
      const kubectl = async (config: Json, args: string[], input?: string): Promise<string> => {
        const path = join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
        await writeFile(path, JSON.stringify(config), { mode: 0o600 });
        const run = promisify(execFile)(KUBECTL, ['--kubeconfig', path, ...args], { timeout: 30_000, env: { ...process.env, HOME: dir } });
        if (input !== undefined) run.child.stdin?.end(input);
        return (await run).stdout;
      };
      const admin = kubeconfig({ token: api.server.adminToken });
      const myuser = await keyAndRequest([{ CN: ['myuser'] }, { O: ['testers'] }]);
      const manifest = JSON.stringify(csr('myuser', myuser.requestPem, 'kubernetes.io/kube-apiserver-client', ['client auth'], { expirationSeconds: 86400 }));
      assert.match(await kubectl(admin, ['create', '-f', '-'], manifest), /certificatesigningrequest.certificates.k8s.io\/myuser created/);
      assert.match(await kubectl(admin, ['certificate', 'approve', 'myuser']), /certificatesigningrequest.certificates.k8s.io\/myuser approved/);
      const done = await answered('myuser');
      assert.match(await kubectl(admin, ['get', 'csr', 'myuser']), /myuser\s+\S+\s+kubernetes.io\/kube-apiserver-client\s+kubernetes-admin\s+24h\s+Approved,Issued/);
      const certificate = (await kubectl(admin, ['get', 'csr', 'myuser', '-o', 'jsonpath={.status.certificate}'])).trim();
      assert.equal(certificate, done.status.certificate);
      const whoami = JSON.parse(await kubectl(kubeconfig({ 'client-certificate-data': certificate, 'client-key-data': b64(myuser.keyPem) }), ['auth', 'whoami', '-o', 'json']));
      const issuedCert = new X509Certificate(Buffer.from(certificate, 'base64'));
      assert.deepEqual(whoami.status.userInfo, { username: 'myuser', groups: ['testers', 'system:authenticated'], extra: credentialId(issuedCert) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

