/**
 * certificates.k8s.io/v1 CertificateSigningRequests over the wire: the
 * requestor recorded from the request's user, the spec immutable, the
 * `status` and `approval` subresources each changing only its part, and
 * kube's validation texts (pkg/apis/certificates/validation).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { TestApi, type Json } from './support/api-client.js';

const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const signer = 'example.com/signer';
const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

/** A PEM PKCS#10 request for `cn`, signed with a fresh P-256 key. */
async function requestPem(cn: string): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: `CN=${cn}`, keys, signingAlgorithm: ecdsa });
  return csr.toString('pem');
}

/** A self-signed certificate, PEM, as a signer would put in status.certificate. */
async function certificatePem(): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({ name: 'CN=issued', keys, signingAlgorithm: ecdsa, notBefore: new Date(), notAfter: new Date(Date.now() + 3_600_000) });
  return cert.toString('pem');
}

const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');

function csr(name: string, request: string, spec: Json = {}): Json {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: b64(request), signerName: signer, usages: ['client auth'], ...spec },
  };
}

/** The Status message of a 422 for the CSR `name`. */
const invalidMessage = (name: string, details: string): string => `CertificateSigningRequest.certificates.k8s.io "${name}" is invalid: ${details}`;

describe('CertificateSigningRequests', () => {
  let api: TestApi;
  let pem: string;
  before(async () => {
    api = await TestApi.start();
    pem = await requestPem('jane');
  });
  after(async () => {
    await api?.stop();
  });

  it('records the requesting user, not what the client sent, and starts with an empty status', async () => {
    const asJane = {
      'Impersonate-User': 'jane',
      'Impersonate-Uid': 'u-42',
      'Impersonate-Group': 'system:masters',
      'Impersonate-Extra-Scopes': 'view',
    };
    const body = csr('from-jane', pem, { username: 'mallory', uid: 'forged', groups: ['admins'], extra: { x: ['y'] } });
    body.status = { conditions: [{ type: 'Approved', status: 'True' }] };
    const created = await api.ok('POST', csrs, body, 201, asJane);
    assert.equal(created.spec.username, 'jane');
    assert.equal(created.spec.uid, 'u-42');
    assert.deepEqual(created.spec.groups, ['system:masters', 'system:authenticated']);
    assert.deepEqual(created.spec.extra, { scopes: ['view'] });
    assert.deepEqual(created.status, {});
    assert.equal(created.metadata.generation, undefined);

    // The admin's own request names the admin.
    const own = await api.ok('POST', csrs, csr('from-admin', pem), 201);
    assert.equal(own.spec.username, 'kubernetes-admin');
    assert.equal(own.spec.uid, undefined);
  });

  it('keeps the spec as created: an update or patch of it changes nothing there', async () => {
    const labelled = csr('immutable', pem);
    labelled.metadata.labels = { owner: 'me' };
    const created = await api.ok('POST', csrs, labelled, 201);
    // The spec is a reset field: the creator owns only its label.
    assert.deepEqual(created.metadata.managedFields[0].fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:owner': {} } } });
    const put = structuredClone(created);
    put.spec.usages = ['server auth'];
    put.spec.username = 'mallory';
    put.metadata.labels.team = 'a';
    const updated = await api.ok('PUT', `${csrs}/immutable?fieldManager=editor`, put, 200);
    assert.deepEqual(updated.spec, created.spec);
    assert.deepEqual(updated.metadata.labels, { owner: 'me', team: 'a' });
    const editor = updated.metadata.managedFields.find((m: Json) => m.manager === 'editor');
    assert.deepEqual(editor.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:team': {} } } });
    const patched = await api.ok('PATCH', `${csrs}/immutable`, { spec: { signerName: 'other.io/x' } }, 200, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(patched.spec.signerName, signer);
  });

  it("refuses what kube's validation refuses, in its words", async () => {
    const notPem = await api.request('POST', csrs, csr('not-pem', 'hi'));
    assert.equal(notPem.status, 422);
    assert.equal(notPem.body.message, invalidMessage('not-pem', 'spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST'));
    assert.deepEqual(notPem.body.details.causes, [
      { reason: 'FieldValueInvalid', message: 'Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST', field: 'spec.request' },
    ]);

    // A request whose signature does not verify: one bit of the signature flipped.
    const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
    der[der.length - 3] ^= 1;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const badSignature = await api.request('POST', csrs, csr('tampered', tampered));
    assert.equal(badSignature.status, 422);
    assert.match(badSignature.body.message, /spec\.request: Invalid value: \[\]byte\{0x2d, 0x2d, [^}]*\}: x509: ECDSA verification failure$/);

    const wrongBlock = await api.request('POST', csrs, csr('wrong-block', pem.replaceAll('CERTIFICATE REQUEST', 'CERTIFICATE')));
    assert.match(wrongBlock.body.message, /PEM block type must be CERTIFICATE REQUEST$/);

    const fields = await api.request('POST', csrs, csr('fields', pem, { signerName: 'example', usages: ['client auth', 'flying', 'client auth'], expirationSeconds: 300 }));
    assert.equal(fields.status, 422);
    assert.equal(
      fields.body.message,
      invalidMessage(
        'fields',
        '[spec.usages[1]: Unsupported value: "flying": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping", ' +
          'spec.usages[2]: Duplicate value: "client auth", ' +
          "spec.signerName: Invalid value: \"example\": must be a fully qualified domain and path of the form 'example.com/signer-name', " +
          'spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 600 seconds (10 minutes)]',
      ),
    );

    const noSigner = await api.request('POST', csrs, csr('no-signer', pem, { signerName: undefined, usages: [] }));
    assert.equal(noSigner.body.message, invalidMessage('no-signer', '[spec.usages: Required value, spec.signerName: Required value]'));

    const oneLabel = await api.request('POST', csrs, csr('one-label', pem, { signerName: 'Example/signer' }));
    assert.match(oneLabel.body.message, /spec.signerName: Invalid value: "Example": validating label "Example": a lowercase RFC 1123 label must consist of/);
    assert.match(oneLabel.body.message, /spec.signerName: Invalid value: "Example": should be a domain with at least two segments separated by dots\]$/);
  });

  it('approval sets Approved or Denied (with timestamps), never both, never removes them', async () => {
    const created = await api.ok('POST', csrs, csr('to-approve', pem), 201);
    const approvedBody = structuredClone(created);
    approvedBody.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Reviewed', message: 'ok' }] };
    // Through the main endpoint or status, the approval is not taken.
    const viaStatus = await api.request('PUT', `${csrs}/to-approve/status`, approvedBody);
    assert.equal(viaStatus.status, 422);
    assert.equal(viaStatus.body.message, invalidMessage('to-approve', 'status.conditions: Forbidden: updates may not add a condition of type "Approved"'));
    const viaMain = await api.ok('PUT', `${csrs}/to-approve`, approvedBody, 200);
    assert.deepEqual(viaMain.status, {});

    const approved = await api.ok('PUT', `${csrs}/to-approve/approval`, approvedBody, 200);
    const [condition] = approved.status.conditions;
    assert.equal(condition.type, 'Approved');
    assert.equal(condition.reason, 'Reviewed');
    assert.match(condition.lastUpdateTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(condition.lastTransitionTime, condition.lastUpdateTime);
    assert.deepEqual(approved.spec, created.spec);
    const got = await api.ok('GET', `${csrs}/to-approve/approval`);
    assert.deepEqual(got.status, approved.status);

    const both = structuredClone(approved);
    both.status.conditions.push({ type: 'Denied', status: 'True', reason: 'Changed', message: 'no' });
    const refused = await api.request('PUT', `${csrs}/to-approve/approval`, both);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.message, invalidMessage('to-approve', 'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive'));

    const removed = await api.request('PATCH', `${csrs}/to-approve/approval`, { status: { conditions: [] } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(removed.status, 422);
    assert.equal(removed.body.message, invalidMessage('to-approve', 'status.conditions: Forbidden: updates may not remove a condition of type "Approved"'));

    const falseStatus = await api.request('POST', csrs, csr('false-approval', pem));
    assert.equal(falseStatus.status, 201);
    const notTrue = await api.request('PATCH', `${csrs}/false-approval/approval`, { status: { conditions: [{ type: 'Approved', status: 'False' }] } }, {
      'Content-Type': 'application/merge-patch+json',
    });
    assert.equal(notTrue.body.message, invalidMessage('false-approval', 'status.conditions[0].status: Unsupported value: "False": supported values: "True"'));
  });

  it('status takes the issued certificate once and keeps the approval as stored', async () => {
    const created = await api.ok('POST', csrs, csr('to-issue', pem), 201);
    created.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Reviewed' }] };
    const approved = await api.ok('PUT', `${csrs}/to-issue/approval`, created, 200);

    const bad = await api.request('PATCH', `${csrs}/to-issue/status`, { status: { certificate: b64('not a certificate') } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.message, invalidMessage('to-issue', 'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block'));

    const issued = structuredClone(approved);
    issued.status.certificate = b64(await certificatePem());
    // The signer's copy of the Approved condition changed: the stored one stays.
    issued.status.conditions[0].reason = 'Rewritten';
    issued.status.conditions.push({ type: 'Failed', status: 'True', reason: 'SignerFailed' });
    const stored = await api.ok('PUT', `${csrs}/to-issue/status`, issued, 200);
    assert.equal(stored.status.certificate, issued.status.certificate);
    assert.deepEqual(stored.status.conditions[0], approved.status.conditions[0]);
    assert.equal(stored.status.conditions[1].type, 'Failed');
    assert.ok(stored.status.conditions[1].lastTransitionTime);

    const again = structuredClone(stored);
    again.status.certificate = b64(await certificatePem());
    const refused = await api.request('PUT', `${csrs}/to-issue/status`, again);
    assert.equal(refused.body.message, invalidMessage('to-issue', 'status.certificate: Forbidden: updates may not modify existing certificate content'));

    const table = await api.ok('GET', `${csrs}?fieldSelector=metadata.name%3Dto-issue`, undefined, 200, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(
      table.columnDefinitions.map((c: Json) => c.name),
      ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition'],
    );
    assert.deepEqual(table.rows[0].cells.filter((_: unknown, i: number) => i !== 1), ['to-issue', signer, 'kubernetes-admin', '<none>', 'Approved,Failed,Issued']);
  });

  it('lists by spec.signerName and prints the requested duration', async () => {
    await api.ok('POST', csrs, csr('other-signer', pem, { signerName: 'example.org/other', expirationSeconds: 86400 }), 201);
    const list = await api.ok('GET', `${csrs}?fieldSelector=spec.signerName%3Dexample.org%2Fother`);
    assert.deepEqual(list.items.map((i: Json) => i.metadata.name), ['other-signer']);
    const table = await api.ok('GET', `${csrs}/other-signer`, undefined, 200, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(table.rows[0].cells.slice(4), ['24h', 'Pending']);
  });
});
