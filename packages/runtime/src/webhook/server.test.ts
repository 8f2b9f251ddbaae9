/**
 * The webhook server over real HTTPS: good reviews, bad input of every kind
 * (each answered clearly, the server serving on afterwards), throws and hangs,
 * metrics, certificate rotation without restart, and a stop that drains.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import fastJsonPatch from 'fast-json-patch';
import { Registry } from 'prom-client';
import { PrometheusWebhookMetrics } from '../metrics/webhook-metrics.js';
import { defineKind } from '../kind.js';
import type { ControllerLogger } from '../controller/logger.js';
import { generateServingCertificate, type GeneratedCertificates } from './certs/generate.js';
import type { CertificateSource, ServingCertificate, WebhookHandler } from './contracts.js';
import { admissionHandler, allowed, defaulter, mutatePath } from './admission/index.js';
import { WebhookServer } from './server.js';

const quiet: ControllerLogger = { debug() {}, info() {}, warn() {}, error() {} };

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function reviewBody(uid = 'uid-1', overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      namespace: 'default',
      name: 'cm',
      operation: 'CREATE',
      userInfo: { username: 'admin' },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { a: '1' } },
      oldObject: null,
      dryRun: false,
      ...overrides,
    },
  };
}

/** A certificate source whose pair the test can change. */
class SwitchableSource implements CertificateSource {
  private listeners = new Set<(pair: ServingCertificate) => void>();
  constructor(private pair: ServingCertificate) {}
  current(): ServingCertificate {
    return this.pair;
  }
  onChange(listener: (pair: ServingCertificate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(pair: ServingCertificate): void {
    this.pair = pair;
    for (const l of this.listeners) l(pair);
  }
}

class Client {
  readonly agent: Agent;
  constructor(
    private readonly port: number,
    private ca: string,
  ) {
    this.agent = new Agent({ keepAlive: true, ca });
  }
  send(path: string, payload: string | Buffer | undefined, opts: { method?: string; headers?: Record<string, string | number>; chunked?: boolean } = {}): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { 'Content-Type': 'application/json', ...opts.headers };
      if (payload !== undefined && !opts.chunked) headers['Content-Length'] = Buffer.byteLength(payload);
      const req = httpsRequest({ host: '127.0.0.1', port: this.port, path, method: opts.method ?? 'POST', agent: this.agent, ca: this.ca, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(text) as Record<string, unknown>;
          } catch {
            body = { text };
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      });
      req.on('error', reject);
      if (payload !== undefined && opts.chunked) {
        // Several writes without Content-Length: the server cannot know the size up front.
        const buf = Buffer.from(payload);
        for (let i = 0; i < buf.length; i += 1024) req.write(buf.subarray(i, i + 1024));
        req.end();
      } else req.end(payload);
    });
  }
  review(path: string, body: unknown = reviewBody()): Promise<Reply> {
    return this.send(path, JSON.stringify(body));
  }
  close(): void {
    this.agent.destroy();
  }
}

function response(reply: Reply): Record<string, unknown> {
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(reply.body.kind, 'AdmissionReview');
  return reply.body.response as Record<string, unknown>;
}

const ConfigMap = defineKind({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });

describe('WebhookServer over HTTPS', () => {
  let certs: GeneratedCertificates;
  let source: SwitchableSource;
  let server: WebhookServer;
  let registry: Registry;
  let stop: AbortController;
  let running: Promise<void>;
  let client: Client;
  let hangSignal: AbortSignal | undefined;
  const goneEntered = deferred();
  const goneAborted = deferred();
  let goneReason: unknown;

  const okPath = '/allow';
  async function stillServing(): Promise<void> {
    const r = response(await client.review(okPath, reviewBody('after')));
    assert.equal(r.allowed, true);
    assert.equal(r.uid, 'after');
  }

  before(async () => {
    certs = await generateServingCertificate();
    source = new SwitchableSource({ cert: certs.cert, key: certs.key });
    registry = new Registry();
    server = new WebhookServer({
      certificates: source,
      host: '127.0.0.1',
      port: 0,
      maxRequestBytes: 4096,
      timeoutMs: 300,
      logger: quiet,
      metrics: new PrometheusWebhookMetrics(registry),
    });
    server.register(okPath, admissionHandler(async () => allowed(['looked fine'])));
    server.register('/throw', admissionHandler(async () => {
      throw new Error('boom');
    }));
    server.register('/hang', admissionHandler(async (_req, ctx) => {
      hangSignal = ctx.signal;
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      return allowed();
    }));
    server.register('/until-aborted', admissionHandler(async (_req, ctx) => {
      goneEntered.resolve();
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      goneReason = ctx.signal.reason;
      goneAborted.resolve();
      return allowed();
    }));
    server.register(mutatePath(ConfigMap), defaulter(ConfigMap, { default: (cm) => void ((cm.data as Record<string, string>).b = '2') }));
    server.register('/mutate-wide', defaulter(ConfigMap, {
      default: (cm, ctx) => {
        const data = cm.data as Record<string, string>;
        for (let i = 0; i < 50; i++) data[`k${i}`] ??= `default-${i}`;
        delete data.k3;
        data.k7 = 'changed';
        // The request's object stays as it was sent while `default` changes its own.
        const sent = ctx.request.object as unknown as { data: Record<string, string> };
        if (sent === (cm as unknown) || sent.data.k7 !== 'seven' || sent.data.k45 !== undefined) throw new Error('the request object changed under the defaulter');
      },
    }));
    stop = new AbortController();
    running = server.start(stop.signal);
    const { port } = await server.listening();
    client = new Client(port, certs.caPem);
  });

  after(async () => {
    client?.close();
    stop.abort();
    await running;
  });

  test('answers a good review with the same uid and apiVersion, warnings included', async () => {
    const r = response(await client.review(okPath, reviewBody('abc')));
    assert.deepEqual(r, { uid: 'abc', allowed: true, status: { code: 200 }, warnings: ['looked fine'] });
  });

  test('answers a v1beta1 review in v1beta1', async () => {
    const body = { ...reviewBody('beta'), apiVersion: 'admission.k8s.io/v1beta1' };
    const reply = await client.review(okPath, body);
    assert.equal(reply.body.apiVersion, 'admission.k8s.io/v1beta1');
    assert.equal((reply.body.response as { uid: string }).uid, 'beta');
  });

  test('a defaulter answers with a base64 JSON Patch', async () => {
    const r = response(await client.review(mutatePath(ConfigMap)));
    assert.equal(r.patchType, 'JSONPatch');
    assert.deepEqual(JSON.parse(Buffer.from(r.patch as string, 'base64').toString('utf8')), [{ op: 'add', path: '/data/b', value: '2' }]);
  });

  test("a defaulter of a wide object answers fast-json-patch's operations, the request's object untouched", async () => {
    const sent: Record<string, string> = {};
    for (let i = 0; i < 40; i++) sent[`k${i}`] = i === 7 ? 'seven' : `v${i}`;
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: sent };
    const r = response(await client.review('/mutate-wide', reviewBody('wide', { object })));
    assert.equal(r.allowed, true);
    const defaulted = structuredClone(object);
    for (let i = 0; i < 50; i++) defaulted.data[`k${i}`] ??= `default-${i}`;
    delete defaulted.data.k3;
    defaulted.data.k7 = 'changed';
    assert.deepEqual(JSON.parse(Buffer.from(r.patch as string, 'base64').toString('utf8')), fastJsonPatch.compare(object, defaulted));
  });

  test('malformed JSON gets 400 with the parser message', async () => {
    const reply = await client.send(okPath, '{"apiVersion": "admission.k8s.io/v1", ');
    assert.equal(reply.status, 400);
    assert.equal(reply.body.kind, 'Status');
    assert.equal(reply.body.reason, 'BadRequest');
    assert.match(reply.body.message as string, /^unable to decode the request body as JSON: /);
    await stillServing();
  });

  test('an empty body gets 400', async () => {
    const reply = await client.send(okPath, '');
    assert.equal(reply.status, 400);
    assert.equal(reply.body.message, 'request body is empty');
    await stillServing();
  });

  test('a content type other than application/json gets 415', async () => {
    const reply = await client.send(okPath, 'apiVersion: v1', { headers: { 'Content-Type': 'application/yaml' } });
    assert.equal(reply.status, 415);
    assert.equal(reply.body.reason, 'UnsupportedMediaType');
    assert.equal(reply.body.message, 'contentType=application/yaml, expected application/json');
    await stillServing();
  });

  test('application/json with parameters is accepted', async () => {
    const reply = await client.send(okPath, JSON.stringify(reviewBody('cs')), { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    assert.equal(response(reply).uid, 'cs');
  });

  test('an oversized body gets 413, declared or streamed', async () => {
    const big = JSON.stringify(reviewBody('big', { object: { metadata: { name: 'x' }, data: { blob: 'x'.repeat(8192) } } }));
    const declared = await client.send(okPath, big);
    assert.equal(declared.status, 413);
    assert.equal(declared.body.reason, 'RequestEntityTooLarge');
    assert.equal(declared.body.message, 'request entity is too large; limit is 4096 bytes');
    const streamed = await client.send(okPath, big, { chunked: true });
    assert.equal(streamed.status, 413);
    assert.equal(streamed.body.message, 'request entity is too large; limit is 4096 bytes');
    await stillServing();
  });

  test('GET gets 405 with Allow: POST', async () => {
    const reply = await client.send(okPath, undefined, { method: 'GET' });
    assert.equal(reply.status, 405);
    assert.equal(reply.headers.allow, 'POST');
    assert.equal(reply.body.reason, 'MethodNotAllowed');
    await stillServing();
  });

  test('an unknown path gets 404 naming the path', async () => {
    const reply = await client.review('/nothing-here');
    assert.equal(reply.status, 404);
    assert.equal(reply.body.message, 'no webhook is registered at path "/nothing-here"');
    await stillServing();
  });

  test('JSON that is not an AdmissionReview gets 400 saying what was expected', async () => {
    const wrongKind = await client.review(okPath, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u' } });
    assert.equal(wrongKind.status, 400);
    assert.equal(wrongKind.body.message, 'expected kind AdmissionReview, got "ConversionReview"');
    const wrongVersion = await client.review(okPath, { ...reviewBody(), apiVersion: 'admission.k8s.io/v2' });
    assert.equal(wrongVersion.status, 400);
    assert.match(wrongVersion.body.message as string, /unsupported AdmissionReview apiVersion "admission.k8s.io\/v2"/);
    const noRequest = await client.review(okPath, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
    assert.equal(noRequest.status, 400);
    assert.equal(noRequest.body.message, 'got an empty AdmissionRequest');
    const array = await client.review(okPath, [1, 2]);
    assert.equal(array.status, 400);
    await stillServing();
  });

  test('a typed handler given another kind answers an error naming both kinds', async () => {
    const pod = reviewBody('pod', {
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} },
    });
    const r = response(await client.review(mutatePath(ConfigMap), pod));
    assert.equal(r.uid, 'pod');
    assert.equal(r.allowed, false);
    assert.deepEqual(r.status, { code: 400, message: 'the webhook for /v1, Kind=ConfigMap cannot handle a request for /v1, Kind=Pod' });
    await stillServing();
  });

  test('a handler that throws is answered as a denied review with code 500, and counted as a panic', async () => {
    const r = response(await client.review('/throw', reviewBody('t1')));
    assert.equal(r.uid, 't1');
    assert.equal(r.allowed, false);
    assert.deepEqual(r.status, { metadata: {}, code: 500, message: 'panic: boom [recovered]' });
    const text = await registry.metrics();
    assert.match(text, /^controller_runtime_webhook_panics_total 1$/m);
    assert.match(text, /^controller_runtime_conversion_webhook_panics_total 0$/m);
    await stillServing();
  });

  test('a handler that hangs is answered 504 at the timeout, and its signal aborts', async () => {
    const started = Date.now();
    const reply = await client.review('/hang', reviewBody('h1'));
    const took = Date.now() - started;
    assert.equal(reply.status, 504);
    assert.equal(reply.body.reason, 'Timeout');
    assert.equal(reply.body.message, 'the webhook handler at /hang did not answer within 300ms');
    assert.ok(took >= 250 && took < 5000, `answered after ${took} ms`);
    assert.equal(hangSignal?.aborted, true);
    await stillServing();
  });

  test('a client that goes away aborts the signal of the handler serving it', { timeout: 5_000 }, async () => {
    const { port } = await server.listening();
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/until-aborted', method: 'POST', agent: false, ca: certs.caPem, headers: { 'Content-Type': 'application/json' } });
    req.on('error', () => undefined);
    req.end(JSON.stringify(reviewBody('gone')));
    await goneEntered.promise;
    req.destroy();
    await goneAborted.promise;
    assert.ok(goneReason instanceof Error);
    assert.equal(goneReason.message, 'the client closed the connection');
    await stillServing();
  });

  test("the caller's ?timeout= shortens the budget so the answer comes before the caller gives up", async () => {
    const reply = await client.send('/hang?timeout=0.2s', JSON.stringify(reviewBody('h2')));
    assert.equal(reply.status, 504);
    assert.equal(reply.body.message, 'the webhook handler at /hang did not answer within 180ms');
  });

  test('metrics carry controller-runtime names and labels', async () => {
    await client.review(okPath, reviewBody('m'));
    const text = await registry.metrics();
    assert.match(text, /^controller_runtime_webhook_requests_total\{webhook="\/allow",code="200"\} \d+$/m);
    assert.match(text, /^controller_runtime_webhook_requests_total\{webhook="\/allow",code="415"\} 1$/m);
    assert.match(text, /^controller_runtime_webhook_requests_total\{webhook="\/allow",code="413"\} 2$/m);
    assert.match(text, /^controller_runtime_webhook_requests_total\{webhook="\/hang",code="504"\} 2$/m);
    assert.match(text, /^controller_runtime_webhook_requests_total\{webhook="\/throw",code="500"\} 0$/m);
    assert.match(text, /^controller_runtime_webhook_requests_in_flight\{webhook="\/allow"\} 0$/m);
    assert.match(text, /^controller_runtime_webhook_latency_seconds_count\{webhook="\/allow"\} \d+$/m);
    assert.match(text, /^controller_runtime_webhook_latency_seconds_bucket\{le="0.005",webhook="\/allow"\} \d+$/m);
    assert.match(text, /^controller_runtime_webhook_admission_responses_total\{webhook="\/throw",allowed="false",admission_code="500"\} 1$/m);
    assert.doesNotMatch(text, /webhook="\/nothing-here"/);
  });

  test('the started checker completes a TLS handshake', async () => {
    await server.startedChecker()();
    const unstarted = new WebhookServer({ certificates: source, port: 0, logger: quiet });
    await assert.rejects(unstarted.startedChecker()(), /webhook server has not been started yet/);
  });

  test('a new certificate is served to new connections without a restart, while an open connection finishes its request', async () => {
    const gate = deferred();
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    server.register('/slow', admissionHandler(async () => {
      entered();
      await gate.promise;
      return allowed();
    }));
    const inflight = client.review('/slow', reviewBody('slow'));
    await inside;

    const next = await generateServingCertificate();
    source.set({ cert: next.cert, key: next.key });
    const fresh = new Client(server.address!.port, next.caPem);
    try {
      assert.equal(response(await fresh.review(okPath, reviewBody('new-ca'))).uid, 'new-ca');
      // A client trusting only the old CA is refused on a new connection.
      const stale = new Client(server.address!.port, certs.caPem);
      await assert.rejects(stale.review(okPath), /certificate|self.signed|unable to verify/i);
      stale.close();
      gate.resolve();
      assert.equal(response(await inflight).uid, 'slow');
    } finally {
      fresh.close();
      source.set({ cert: certs.cert, key: certs.key });
    }
  });
});

describe('WebhookServer start and stop', () => {
  test('refuses to start without a certificate, with a clear error', async () => {
    const server = new WebhookServer({
      port: 0,
      logger: quiet,
      certificates: {
        current: () => {
          throw new Error('tls.crt not found in /tmp/certs');
        },
        onChange: () => () => undefined,
      },
    });
    await assert.rejects(server.start(new AbortController().signal), /webhook server: no serving certificate: tls.crt not found in \/tmp\/certs/);
    await assert.rejects(server.listening(), /no serving certificate/);
  });

  test('stop lets an in-flight request finish, refuses new connections, then resolves', async () => {
    const certs = await generateServingCertificate();
    const server = new WebhookServer({ certificates: certs.source, host: '127.0.0.1', port: 0, logger: quiet, timeoutMs: 10_000 });
    const gate = deferred();
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let sawAbort = false;
    const slow: WebhookHandler = admissionHandler(async (_req, ctx) => {
      entered();
      await gate.promise;
      sawAbort = ctx.signal.aborted;
      return allowed();
    });
    server.register('/slow', slow);
    const stop = new AbortController();
    let stopped = false;
    const running = server.start(stop.signal).then(() => (stopped = true));
    const { port } = await server.listening();
    const client = new Client(port, certs.caPem);
    try {
      const inflight = client.review('/slow', reviewBody('drain'));
      await inside;
      stop.abort();
      // The listener closes at once: a new connection is refused while the old request runs.
      await assert.rejects(
        new Promise<void>((resolve, reject) => {
          const s = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
            s.destroy();
            resolve();
          });
          s.once('error', reject);
        }),
        /ECONNREFUSED/,
      );
      assert.equal(stopped, false, 'stop waited for the in-flight request');
      gate.resolve();
      const reply = await inflight;
      assert.equal(response(reply).uid, 'drain');
      assert.equal(reply.headers.connection, 'close');
      assert.equal(sawAbort, false, 'stopping does not abort in-flight handlers');
      await running;
      assert.equal(stopped, true);
    } finally {
      client.close();
    }
  });
});
