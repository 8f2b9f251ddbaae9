/**
 * Hub-and-spoke conversion and the ConversionReview handler, called directly:
 * which functions run for each pair of versions, what happens to metadata,
 * how failures and malformed reviews are answered.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import type { ControllerLogger } from '../../controller/logger.js';
import { defineKind } from '../../kind.js';
import type { WebhookRequestContext } from '../contracts.js';
import { WebhookRequestError } from '../errors.js';
import { conversionHandler } from './handler.js';
import { ConversionError, defineConversion } from './hub.js';
import type { ConversionReview } from './review.js';

interface WidgetV2 extends KubeObject {
  spec: { replicas: number };
}
interface WidgetV1 extends KubeObject {
  spec: { size: number };
}
interface WidgetV1alpha1 extends KubeObject {
  spec: { count: string };
}

const V2 = defineKind<WidgetV2>({ group: 'example.com', version: 'v2', kind: 'Widget', plural: 'widgets', namespaced: true });
const V1 = defineKind<WidgetV1>({ group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
const V1alpha1 = defineKind<WidgetV1alpha1>({ group: 'example.com', version: 'v1alpha1', kind: 'Widget', plural: 'widgets', namespaced: true });

function widgets(calls: string[] = []) {
  return defineConversion(V2)
    .spoke(V1, {
      toHub: (w) => {
        calls.push('v1.toHub');
        if (w.spec.size < 0) throw new Error('spec.size must not be negative');
        return { ...w, spec: { replicas: w.spec.size } };
      },
      fromHub: (h) => {
        calls.push('v1.fromHub');
        return { ...h, spec: { size: h.spec.replicas } };
      },
    })
    .spoke(V1alpha1, {
      toHub: async (w) => {
        calls.push('v1alpha1.toHub');
        return { ...w, spec: { replicas: Number(w.spec.count) } };
      },
      fromHub: async (h) => {
        calls.push('v1alpha1.fromHub');
        return { ...h, spec: { count: String(h.spec.replicas) } };
      },
    });
}

const quiet: ControllerLogger = { debug() {}, info() {}, warn() {}, error() {} };
const ctx: WebhookRequestContext = { signal: new AbortController().signal, log: quiet };

function v1(name: string, size: number, extra: Partial<KubeObject['metadata']> = {}): WidgetV1 {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', ...extra }, spec: { size } };
}

function review(desiredAPIVersion: string, objects: unknown[], apiVersion = 'apiextensions.k8s.io/v1'): unknown {
  return { apiVersion, kind: 'ConversionReview', request: { uid: 'req-1', desiredAPIVersion, objects } };
}

describe('defineConversion', () => {
  test('spoke to spoke goes through the hub; hub to spoke and spoke to hub take one step; same version none', async () => {
    const calls: string[] = [];
    const conv = widgets(calls);
    assert.deepEqual(conv.versions, ['v2', 'v1', 'v1alpha1']);

    const alpha = await conv.convert(v1('a', 3), 'example.com/v1alpha1');
    assert.deepEqual(calls.splice(0), ['v1.toHub', 'v1alpha1.fromHub']);
    assert.deepEqual(alpha, { apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: v1('a', 3).metadata, spec: { count: '3' } });

    const hub = await conv.convert(alpha, 'example.com/v2');
    assert.deepEqual(calls.splice(0), ['v1alpha1.toHub']);
    assert.deepEqual(hub.spec, { replicas: 3 });
    assert.equal(hub.apiVersion, 'example.com/v2');

    const back = await conv.convert(hub, 'example.com/v1');
    assert.deepEqual(calls.splice(0), ['v1.fromHub']);
    assert.deepEqual(back, v1('a', 3));

    const same = await conv.convert(back, 'example.com/v1');
    assert.deepEqual(calls, []);
    assert.deepEqual(same, back);
    assert.notEqual(same, back, 'a copy, not the object itself');
  });

  test('metadata stays the original’s except labels and annotations; the input is never changed', async () => {
    const conv = defineConversion(V2).spoke(V1, {
      toHub: (w) => {
        w.metadata.name = 'renamed';
        w.metadata.uid = 'other';
        w.metadata.labels = { moved: 'yes' };
        w.metadata.annotations = { 'example.com/size': String(w.spec.size) };
        return { ...w, spec: { replicas: w.spec.size } };
      },
      // No metadata at all: the hub's is kept, labels and annotations included.
      fromHub: (h) => ({ spec: { size: h.spec.replicas } }) as WidgetV1,
    });
    const original = v1('m', 2, { labels: { before: 'x' } });
    const snapshot = structuredClone(original);
    const hub = await conv.convert(original, 'example.com/v2');
    assert.deepEqual(original, snapshot);
    assert.deepEqual(hub.metadata, {
      name: 'm',
      namespace: 'default',
      uid: 'uid-m',
      resourceVersion: '7',
      labels: { moved: 'yes' },
      annotations: { 'example.com/size': '2' },
    });
    const back = await conv.convert(hub, 'example.com/v1');
    assert.deepEqual(back.metadata, hub.metadata);
    assert.deepEqual(Object.keys(back), ['apiVersion', 'kind', 'metadata', 'spec']);
  });

  test('failures name the object and the versions', async () => {
    const conv = widgets();
    await assert.rejects(conv.convert(v1('neg', -1), 'example.com/v1alpha1'), {
      name: 'ConversionError',
      message: 'converting Widget "default/neg" from example.com/v1 to example.com/v1alpha1: v1 to hub v2: spec.size must not be negative',
    });
    await assert.rejects(conv.convert(v1('x', 1), 'example.com/v3'), {
      message: 'converting Widget "default/x" from example.com/v1 to example.com/v3: version "v3" of Widget has no conversion (known: v2, v1, v1alpha1)',
    });
    await assert.rejects(conv.convert(v1('x', 1), 'other.com/v2'), /: "other.com\/v2" is not in group "example.com"$/);
    const badReturn = defineConversion(V2).spoke(V1, { toHub: () => null as unknown as WidgetV2, fromHub: (h) => h as unknown as WidgetV1 });
    await assert.rejects(badReturn.convert(v1('n', 1), 'example.com/v2'), { message: 'converting Widget "default/n" to example.com/v2: the conversion returned null, not an object' });
  });

  test('refuses a spoke at the hub version, a spoke defined twice, and a spoke of another kind', () => {
    assert.throws(() => defineConversion(V2).spoke(V2, { toHub: (w) => w, fromHub: (h) => h }), /v2 is the hub of Widget; it cannot also be a spoke/);
    assert.throws(() => widgets().spoke('v1', { toHub: (w) => w as WidgetV2, fromHub: (h) => h }), /spoke v1 of Widget is already defined/);
    const Gadget = defineKind<KubeObject>({ group: 'example.com', version: 'v1', kind: 'Gadget', plural: 'gadgets', namespaced: true });
    assert.throws(() => defineConversion(V2).spoke(Gadget, { toHub: (w) => w as WidgetV2, fromHub: (h) => h }), /spoke example.com\/v1, Kind=Gadget is not a version of example.com\/v2, Kind=Widget/);
    assert.throws(() => conversionHandler([widgets(), widgets()]), /conversions for Widget in group "example.com" are registered twice/);
  });
});

describe('conversionHandler', () => {
  test('converts every object in order, answering with the uid and Success in the review’s own version', async () => {
    const handle = conversionHandler([widgets()]);
    const answer = (await handle(review('example.com/v2', [v1('a', 1), v1('b', 2)]), ctx)) as ConversionReview;
    assert.equal(answer.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(answer.kind, 'ConversionReview');
    assert.equal(answer.request, undefined);
    assert.deepEqual(answer.response?.result, { metadata: {}, status: 'Success' });
    assert.equal(answer.response?.uid, 'req-1');
    assert.deepEqual(
      answer.response?.convertedObjects.map((o) => [o.apiVersion, o.metadata.name, o.spec]),
      [
        ['example.com/v2', 'a', { replicas: 1 }],
        ['example.com/v2', 'b', { replicas: 2 }],
      ],
    );
    const beta = (await handle(review('example.com/v1alpha1', [v1('c', 4)], 'apiextensions.k8s.io/v1beta1'), ctx)) as ConversionReview;
    assert.equal(beta.apiVersion, 'apiextensions.k8s.io/v1beta1');
    assert.deepEqual(beta.response?.convertedObjects[0].spec, { count: '4' });
  });

  test('answers Failure naming the object and versions when a conversion throws or nothing converts the object', async () => {
    const errors: string[] = [];
    const log: ControllerLogger = { ...quiet, error: (_f, msg) => errors.push(msg) };
    const handle = conversionHandler([widgets()]);
    const failed = (await handle(review('example.com/v2', [v1('ok', 1), v1('neg', -2)]), { ...ctx, log })) as ConversionReview;
    assert.deepEqual(failed.response, {
      uid: 'req-1',
      convertedObjects: [],
      result: { metadata: {}, status: 'Failure', message: 'converting Widget "default/neg" from example.com/v1 to example.com/v2: v1 to hub v2: spec.size must not be negative' },
    });
    assert.deepEqual(errors, ['conversion failed']);

    const gadget = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: {} };
    const unknown = (await handle(review('example.com/v2', [gadget]), ctx)) as ConversionReview;
    assert.equal(unknown.response?.result.status, 'Failure');
    assert.equal(unknown.response?.result.message, 'converting Gadget "g" from example.com/v1 to example.com/v2: no conversion is registered for kind Gadget in group "example.com"');

    const notObject = (await handle(review('example.com/v2', ['text']), ctx)) as ConversionReview;
    assert.equal(notObject.response?.result.message, 'request.objects[0] is not an object with apiVersion and kind');
    const noDesired = (await handle({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u', objects: [] } }, ctx)) as ConversionReview;
    assert.deepEqual(noDesired.response?.result, { metadata: {}, status: 'Failure', message: 'request.desiredAPIVersion is required' });
    assert.equal(noDesired.response?.uid, 'u');
  });

  test('a body that is no ConversionReview is refused with a 400 WebhookRequestError', async () => {
    const handle = conversionHandler([widgets()]);
    const refused = async (body: unknown, message: string | RegExp): Promise<void> => {
      await assert.rejects(handle(body, ctx), (e: unknown) => {
        assert.ok(e instanceof WebhookRequestError);
        assert.equal(e.code, 400);
        if (typeof message === 'string') assert.equal(e.message, message);
        else assert.match(e.message, message);
        return true;
      });
    };
    await refused([], 'the request body is not a ConversionReview: expected a JSON object');
    await refused({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u' } }, /^unsupported review admission.k8s.io\/v1, Kind=AdmissionReview: expected ConversionReview/);
    await refused({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' }, 'the ConversionReview has no request');
    await refused({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { desiredAPIVersion: 'example.com/v1', objects: [] } }, 'the ConversionReview request has no uid');
    assert.ok(new ConversionError('x') instanceof Error);
  });
});
