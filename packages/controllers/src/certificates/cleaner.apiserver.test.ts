/**
 * The CSR cleaner against the embedded server (which signs the
 * kubernetes.io/kube-apiserver-client requests it sees approved), on a
 * manually advanced clock: each kind of finished request goes at the first
 * pass past its deadline and not at the pass before; an approved request no
 * signer issued stays.
 */
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Client, loadKubeConfig, Manager, type Timer } from '@operant/runtime';
import { FakeClock } from '@operant/runtime/testing';
import { rfc3339 } from '../clock.js';
import { CertificateSigningRequest, type CertificateSigningRequestObject } from '../kinds.js';
import { watchUntil } from '../testdata/watch-until.js';
import { addCsrCleaner, csrCleanerPollingIntervalMs } from './cleaner.js';

/** A fake clock that says when the cleaner has scheduled its next pass (its last one is over). */
class PassClock extends FakeClock {
  private scheduled: (() => void) | undefined;

  override setTimer(callback: () => void, delayMs: number): Timer {
    const timer = super.setTimer(callback, delayMs);
    this.scheduled?.();
    return timer;
  }

  /** Resolves once the next pass is scheduled. */
  nextSchedule(): Promise<void> {
    return new Promise((resolve) => {
      this.scheduled = () => {
        this.scheduled = undefined;
        resolve();
      };
    });
  }

  /** Advances one polling interval and waits for the pass it runs to finish. */
  async pass(): Promise<void> {
    const done = this.nextSchedule();
    this.advance(csrCleanerPollingIntervalMs);
    await done;
  }
}

const hour = 60 * 60_000;
// A whole second, so that timestamps written at it (RFC 3339 has seconds) are exactly it.
const clock = new PassClock(Math.floor(Date.now() / 1000) * 1000);
const t0 = clock.now();

let server: RunningApiServer;
let mgr: Manager;
let watcher: Client;
const stopping = new AbortController();
let running: Promise<void>;

before(async () => {
  server = await startApiServer({ port: 0 });
  mgr = await Manager.create({ kubeconfig: { kubeconfigText: server.kubeconfig }, client: { readYourWrites: true, qps: Infinity } });
  watcher = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
  addCsrCleaner(mgr, { clock });
  const firstPass = clock.nextSchedule();
  running = mgr.start(stopping.signal);
  await firstPass;
});
after(async () => {
  stopping.abort();
  await running;
  watcher.close();
  await server?.stop();
});

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

async function requestPem(commonName: string): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: [{ CN: [commonName] }], keys, signingAlgorithm: ecdsa });
  return request.toString('pem');
}

async function createCsr(name: string, signerName: string, expirationSeconds?: number): Promise<void> {
  const request = Buffer.from(await requestPem(name)).toString('base64');
  await mgr.client.create(CertificateSigningRequest, {
    metadata: { name },
    spec: { request, signerName, usages: ['client auth', 'digital signature'], ...(expirationSeconds ? { expirationSeconds } : {}) },
  });
}

async function condition(name: string, subresource: 'approval' | 'status', type: string, at: number): Promise<void> {
  const c = { type, status: 'True', reason: 'Test', message: `${type} by the test`, lastUpdateTime: rfc3339(at) };
  await mgr.client.patch(CertificateSigningRequest, name, { status: { conditions: [c] } }, { subresource, patchType: 'merge' });
}

const names = async (): Promise<string[]> => (await watcher.list(CertificateSigningRequest)).items.map((c) => c.metadata.name!).sort();

describe('CSR cleaner', () => {
  it('deletes each finished request at its first pass past the deadline, and keeps an approved one no signer issued', async () => {
    await createCsr('issued', 'kubernetes.io/kube-apiserver-client');
    await createCsr('expiring', 'kubernetes.io/kube-apiserver-client', 600);
    await createCsr('denied', 'example.com/signer');
    await createCsr('failed', 'example.com/signer');
    await createCsr('pending', 'example.com/signer');
    await createCsr('unissued', 'example.com/signer');
    await condition('issued', 'approval', 'Approved', t0);
    // Approved "in the future" (cluster time), so only its certificate's expiry can remove it.
    await condition('expiring', 'approval', 'Approved', t0 + 1000 * hour);
    await condition('denied', 'approval', 'Denied', t0);
    await condition('failed', 'status', 'Failed', t0);
    await condition('unissued', 'approval', 'Approved', t0);
    // The server signs the two kube-apiserver-client requests; a write of ours after that
    // makes the manager's cache (read-your-writes) hold the signed versions before a pass reads them.
    const hasCert = (o: Map<string, CertificateSigningRequestObject>, n: string): boolean => (o.get(n)?.status?.certificate ?? '') !== '';
    await watchUntil(watcher, CertificateSigningRequest, undefined, (o) => hasCert(o, 'issued') && hasCert(o, 'expiring'));
    for (const n of ['issued', 'expiring']) await mgr.client.patch(CertificateSigningRequest, n, { metadata: { labels: { signed: 'seen' } } }, { patchType: 'merge' });

    // t0 + 1 h: the 10-minute certificate has expired; the others are exactly an hour old, not more.
    await clock.pass();
    assert.deepEqual(await names(), ['denied', 'failed', 'issued', 'pending', 'unissued']);

    // t0 + 2 h: approved-and-issued, denied and failed are past their hour.
    await clock.pass();
    assert.deepEqual(await names(), ['pending', 'unissued']);

    // A pending request stays for a day after its creation (made at t0 or a few seconds after).
    for (let h = 3; h <= 24; h++) await clock.pass();
    assert.deepEqual(await names(), ['pending', 'unissued']);
    await clock.pass();
    assert.deepEqual(await names(), ['unissued']);
    assert.equal(clock.now(), t0 + 25 * hour);
  });
});
