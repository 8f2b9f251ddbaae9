/**
 * The real kubectl against `operant server`: certificates.k8s.io/v1
 * CertificateSigningRequests, created as the docs' "issue a certificate for a
 * user" walk-through does, approved and denied with `kubectl certificate`,
 * issued by the server's signer, and printed with kubectl's columns. The request is fixtures/jane.csr
 * (`openssl req -new -newkey rsa:2048 -nodes -subj "/CN=jane/O=developers"`).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe } from 'node:test';
import { kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();
const request = readFileSync(new URL('./fixtures/jane.csr', import.meta.url)).toString('base64');

const csrYaml = (name: string, extra = ''): string => `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: ${name}}
spec:
  request: ${request}
  signerName: kubernetes.io/kube-apiserver-client
  usages: [client auth]
${extra}
`;

describe('kubectl and certificates.k8s.io CertificateSigningRequests', () => {
  kit('api-resources lists csr; approve and deny show in get csr', async () => {
    const rows = tableRows(await kubectlOk(server(), ['api-resources', '--api-group=certificates.k8s.io']));
    assert.deepEqual(rows[1], ['certificatesigningrequests', 'csr', 'certificates.k8s.io/v1', 'false', 'CertificateSigningRequest']);

    await applyYaml(server(), `${csrYaml('jane', '  expirationSeconds: 86400')}---\n${csrYaml('mallory')}`);
    let printed = tableRows(await kubectlOk(server(), ['get', 'csr']));
    assert.deepEqual(printed[0], ['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
    const row = (name: string): string[] => printed.find((r) => r[0] === name)!;
    assert.deepEqual(row('jane').slice(2), ['kubernetes.io/kube-apiserver-client', 'kubernetes-admin', '24h', 'Pending']);
    assert.deepEqual(row('mallory').slice(2), ['kubernetes.io/kube-apiserver-client', 'kubernetes-admin', '<none>', 'Pending']);

    assert.match(await kubectlOk(server(), ['certificate', 'approve', 'jane']), /certificatesigningrequest.certificates.k8s.io\/jane approved/);
    assert.match(await kubectlOk(server(), ['certificate', 'deny', 'mallory']), /certificatesigningrequest.certificates.k8s.io\/mallory denied/);
    // The server's signer for kubernetes.io/kube-apiserver-client issues jane's certificate (an RSA request, the CA's ECDSA key).
    for (let tries = 0; tries < 100; tries++) {
      if ((await kubectlOk(server(), ['get', 'csr', 'jane', '-o', 'jsonpath={.status.certificate}'])).trim()) break;
    }
    printed = tableRows(await kubectlOk(server(), ['get', 'csr']));
    assert.equal(row('jane')[5], 'Approved,Issued');
    assert.equal(row('mallory')[5], 'Denied');

    const condition = JSON.parse(await kubectlOk(server(), ['get', 'csr', 'jane', '-o', 'jsonpath={.status.conditions[0]}']));
    assert.equal(condition.type, 'Approved');
    assert.equal(condition.reason, 'KubectlApprove');
    assert.equal(condition.message, 'This CSR was approved by kubectl certificate approve.');
    assert.ok(condition.lastTransitionTime, 'the server sets lastTransitionTime');

    // kubectl refuses to approve a denied request itself; the server's refusal of both is in the HTTP test.
    const again = await kubectlFails(server(), ['certificate', 'approve', 'mallory']);
    assert.match(again.stderr, /certificate signing request "mallory" is already Denied/);
  });

  kit("kube's refusals, in kube's words", async () => {
    const short = await kubectlFails(server(), ['apply', '-f', '-'], { input: csrYaml('short', '  expirationSeconds: 60') });
    assert.match(short.stderr, /spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds \(10 minutes\)/);
    const signer = await kubectlFails(server(), ['apply', '-f', '-'], { input: csrYaml('signer').replace('kubernetes.io/kube-apiserver-client', 'client') });
    assert.match(signer.stderr, /spec.signerName: Invalid value: "client": must be a fully qualified domain and path of the form 'example.com\/signer-name'/);
    const notARequest = await kubectlFails(server(), ['apply', '-f', '-'], { input: csrYaml('garbage').replace(request, Buffer.from('hello').toString('base64')) });
    assert.match(notARequest.stderr, /spec.request: Invalid value: \[\]byte\{0x68, 0x65, 0x6c, 0x6c, 0x6f\}: PEM block type must be CERTIFICATE REQUEST/);
  });
});
