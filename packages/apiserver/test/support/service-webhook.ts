/** A validating webhook on Services for the Service registry's tests (node ports, cluster IPs). */
import { EventEmitter, once } from 'node:events';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateCertificateAuthority, issueServingCertificate } from '../../src/tls/certificates.js';
import type { Json, TestApi } from './api-client.js';

export interface ServiceWebhook {
  /** The answers of the reviews held, in arrival order: call one to allow (true) or deny. */
  held: Array<(allowed: boolean) => void>;
  /** Emits `held` with the Service's name when a review is held. */
  arrivals: EventEmitter;
  /** Resolves when a review of the Service `name` is held. */
  heldReview(name: string): Promise<void>;
  /** Answers every review held so far. */
  releaseAll(allowed: boolean): void;
  close(): void;
}

/**
 * A validating webhook on Services whose answers the test controls, by the
 * Service's `review` label: `hold` waits until the test lets it go (allowing
 * or denying), `deny` denies at once, anything else is allowed.
 */
export async function startServiceWebhook(api: TestApi, namespace: string): Promise<ServiceWebhook> {
  const ca = await generateCertificateAuthority('service-webhook-ca');
  const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const held: Array<(allowed: boolean) => void> = [];
  const arrivals = new EventEmitter();
  const server = createHttpsServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { request } = JSON.parse(Buffer.concat(chunks).toString()) as Json;
      const answer = (allowed: boolean): void => {
        const response: Json = { uid: request.uid, allowed, ...(allowed ? {} : { status: { code: 403, message: 'not this one' } }) };
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
      };
      const review = request.object?.metadata?.labels?.review;
      if (review === 'hold') {
        held.push(answer);
        arrivals.emit('held', request.name);
      } else answer(review !== 'deny');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  await api.ok('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'service-review' },
    webhooks: [{
      name: 'service-review.example.com',
      clientConfig: { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/validate`, caBundle: Buffer.from(ca.certPem).toString('base64') },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['services'] }],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
      failurePolicy: 'Fail',
      timeoutSeconds: 30,
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    }],
  }, 201);
  return {
    held,
    arrivals,
    heldReview: (name) => new Promise((resolve) => arrivals.on('held', function seen(n: string) {
      if (n !== name) return;
      arrivals.off('held', seen);
      resolve();
    })),
    releaseAll(allowed) {
      for (const answer of held.splice(0)) answer(allowed);
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
