/**
 * The admission helpers on their own: controller-runtime's paths, response
 * codes and reasons, the JSON Patch of a mutation, decoding, and the Invalid
 * wording of field errors. (The server and the API server are exercised in
 * server.test.ts and admission.apiserver.test.ts.)
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invalid, notFound } from '@operant/apimachinery';
import { defineKind } from '../../kind.js';
import { admissionHandler, allowed, decodeObject, validator, decodeOldObject, DecodeError, denied, deniedWithStatus, errored, fieldErrors, mutatePath, patched, validatePath, ValidationError, type AdmissionRequest } from './index.js';

const Pod = defineKind({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true });
const SidecarSet = defineKind({ group: 'apps.kruise.io', version: 'v1alpha1', kind: 'SidecarSet', plural: 'sidecarsets', namespaced: false });

const ctx = { signal: new AbortController().signal, log: { debug() {}, info() {}, warn() {}, error() {} } };

async function answer(handler: ReturnType<typeof admissionHandler>, req: AdmissionRequest): Promise<Record<string, unknown>> {
  const review = (await handler({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: req }, ctx)) as { response: Record<string, unknown> };
  return review.response;
}

function request(overrides: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: 'u',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    operation: 'CREATE',
    userInfo: {},
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
    ...overrides,
  };
}

describe('admission helpers', () => {
  test("paths follow controller-runtime's convention, core group included", () => {
    assert.equal(mutatePath(SidecarSet), '/mutate-apps-kruise-io-v1alpha1-sidecarset');
    assert.equal(validatePath(SidecarSet), '/validate-apps-kruise-io-v1alpha1-sidecarset');
    assert.equal(mutatePath(Pod), '/mutate--v1-pod');
  });

  test('responses carry controller-runtime codes and reasons', () => {
    assert.deepEqual(allowed(), { allowed: true, status: { code: 200 } });
    assert.deepEqual(allowed(['w']), { allowed: true, status: { code: 200 }, warnings: ['w'] });
    assert.deepEqual(denied('no'), { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no' } });
    assert.deepEqual(denied('slow down', 429), { allowed: false, status: { code: 429, reason: 'TooManyRequests', message: 'slow down' } });
    assert.deepEqual(errored(500, new Error('lookup failed')), { allowed: false, status: { code: 500, message: 'lookup failed' } });
    const status = deniedWithStatus(invalid('apps.kruise.io', 'SidecarSet', 's', [fieldErrors.required('spec.selector', '')]).status);
    assert.equal(status.allowed, false);
    assert.deepEqual(status.status, {
      metadata: {},
      status: 'Failure',
      message: 'SidecarSet.apps.kruise.io "s" is invalid: spec.selector: Required value',
      reason: 'Invalid',
      code: 422,
      details: { name: 's', kind: 'SidecarSet', group: 'apps.kruise.io', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' }] },
    });
  });

  test('patched answers the JSON Patch between the two objects, or no patch when equal', () => {
    const original = { metadata: { name: 'p' }, spec: { containers: [{ name: 'app' }] } };
    const mutated = structuredClone(original);
    mutated.spec.containers.push({ name: 'sidecar' });
    (mutated.metadata as Record<string, unknown>).labels = { 'a/b': 'c' };
    const r = patched(original, mutated);
    assert.equal(r.patchType, 'JSONPatch');
    const ops = JSON.parse(Buffer.from(r.patch!, 'base64').toString('utf8')) as unknown[];
    assert.deepEqual(ops, [
      { op: 'add', path: '/spec/containers/1', value: { name: 'sidecar' } },
      { op: 'add', path: '/metadata/labels', value: { 'a/b': 'c' } },
    ]);
    assert.deepEqual(patched(original, structuredClone(original)), { allowed: true, status: { code: 200 } });
  });

  test('ValidationError joins its field errors', () => {
    const err = new ValidationError([fieldErrors.invalid('spec.replicas', 11, 'must be at most 10'), fieldErrors.forbidden('spec.selector', 'may not change')], { warnings: ['w'] });
    assert.equal(err.message, 'spec.replicas: Invalid value: 11: must be at most 10, spec.selector: Forbidden: may not change');
    assert.deepEqual(err.warnings, ['w']);
    assert.equal(new ValidationError(fieldErrors.duplicate('spec.names[1]', 'a')).errors.length, 1);
  });

  test('decodeObject checks presence and kind', () => {
    assert.equal(decodeObject(request(), Pod).metadata.name, 'p');
    assert.throws(() => decodeOldObject(request()), (e: unknown) => e instanceof DecodeError && /the request has no oldObject/.test(e.message));
    assert.throws(() => decodeObject(request(), SidecarSet), /cannot decode v1, Kind=Pod as apps.kruise.io\/v1alpha1, Kind=SidecarSet/);
  });

  test('a raw handler may throw field errors or API errors to deny with their status', async () => {
    const invalidPod = admissionHandler(async () => {
      throw new ValidationError(fieldErrors.required('spec.containers', ''));
    });
    const r = await answer(invalidPod, request({ name: 'p' }));
    assert.equal(r.allowed, false);
    assert.equal((r.status as { message: string }).message, 'Pod "p" is invalid: spec.containers: Required value');
    assert.equal((r.status as { code: number }).code, 422);
    const missing = admissionHandler(async () => {
      throw notFound({ group: '', resource: 'namespaces' }, 'web');
    });
    const m = await answer(missing, request());
    assert.deepEqual(m.status, { metadata: {}, status: 'Failure', message: 'namespaces "web" not found', reason: 'NotFound', code: 404, details: { name: 'web', kind: 'namespaces' } });
  });

  test('a validator sees old and new objects on UPDATE and the deleted object on DELETE', async () => {
    const seen: string[] = [];
    const v = validator(Pod, {
      validateUpdate(oldObj, newObj) {
        seen.push(`update ${oldObj.metadata.resourceVersion}->${newObj.metadata.resourceVersion}`);
        return ['careful'];
      },
      validateDelete(obj) {
        seen.push(`delete ${obj.metadata.name}`);
      },
    });
    const old = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', resourceVersion: '1' } };
    const next = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', resourceVersion: '2' } };
    const u = await answer(v, request({ operation: 'UPDATE', object: next, oldObject: old }));
    assert.deepEqual(u, { uid: 'u', allowed: true, status: { code: 200 }, warnings: ['careful'] });
    const d = await answer(v, request({ operation: 'DELETE', object: null, oldObject: old }));
    assert.equal(d.allowed, true);
    const missingOld = await answer(v, request({ operation: 'UPDATE', object: next }));
    assert.deepEqual(missingOld.status, { code: 400, message: 'there is no content to decode: the request has no oldObject' });
    assert.deepEqual(seen, ['update 1->2', 'delete p']);
  });
});
