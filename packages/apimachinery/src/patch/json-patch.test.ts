import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError, type Status } from '../status.js';
import { applyJsonPatch, maxJsonPatchCopyBytes, maxJsonPatchOperations } from './json-patch.js';

function pod(): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', labels: { app: 'web', tier: 'front' }, annotations: {} },
    spec: {
      containers: [
        { name: 'app', image: 'nginx:1.25', args: ['-g', 'daemon off;'] },
        { name: 'log', image: 'busybox' },
      ],
    },
  };
}

/** Runs `fn`, which must throw a StatusError, and returns it. */
function statusError(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a StatusError');
}

/** The 422 kube sends when an operation does not apply, with json-patch's words on `cause`. */
function assertRejected(fn: () => unknown, cause: string): void {
  const err = statusError(fn);
  const want: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server rejected our request due to an error in our request',
    reason: 'Invalid',
    details: {},
    code: 422,
  };
  assert.deepEqual(err.status, want);
  assert.equal(err.cause, cause);
}

describe('applyJsonPatch', () => {
  it('applies add, remove, replace, move, copy and test in order', () => {
    const doc = pod();
    const out = applyJsonPatch(doc, [
      { op: 'test', path: '/metadata/labels/app', value: 'web' },
      { op: 'replace', path: '/spec/containers/0/image', value: 'nginx:1.26' },
      { op: 'add', path: '/metadata/labels/version', value: 'v2' },
      { op: 'remove', path: '/metadata/labels/tier' },
      { op: 'copy', from: '/metadata/labels/app', path: '/metadata/annotations/owner' },
      { op: 'move', from: '/spec/containers/1', path: '/spec/containers/0' },
      { op: 'add', path: '/spec/containers/1/args/-', value: '-q' },
    ]);
    assert.deepEqual(out, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', labels: { app: 'web', version: 'v2' }, annotations: { owner: 'web' } },
      spec: {
        containers: [
          { name: 'log', image: 'busybox' },
          { name: 'app', image: 'nginx:1.26', args: ['-g', 'daemon off;', '-q'] },
        ],
      },
    });
    assert.deepEqual(doc, pod(), 'the input document is not modified');
  });

  it('unescapes ~1 and ~0 in path segments', () => {
    const out = applyJsonPatch(pod(), [
      { op: 'add', path: '/metadata/annotations/example.com~1team', value: 'infra' },
      { op: 'add', path: '/metadata/annotations/a~0b', value: 'x' },
    ]) as { metadata: { annotations: Record<string, string> } };
    assert.deepEqual(out.metadata.annotations, { 'example.com/team': 'infra', 'a~b': 'x' });
  });

  it('supports negative array indices like kube (counted from the end)', () => {
    const out = applyJsonPatch({ a: [1, 2, 3] }, [
      { op: 'remove', path: '/a/-1' },
      { op: 'replace', path: '/a/-2', value: 9 },
      { op: 'add', path: '/a/-1', value: 5 },
    ]);
    assert.deepEqual(out, { a: [9, 2, 5] });
  });

  it('adds a missing object member on replace, as kube does', () => {
    const out = applyJsonPatch(pod(), [{ op: 'replace', path: '/metadata/labels/new', value: 'yes' }]) as {
      metadata: { labels: Record<string, string> };
    };
    assert.equal(out.metadata.labels.new, 'yes');
  });

  it('treats a missing member and null alike in test, and sets null when add has no value', () => {
    const out = applyJsonPatch({ a: null }, [
      { op: 'test', path: '/missing', value: null },
      { op: 'test', path: '/a' },
      { op: 'add', path: '/b' },
    ]);
    assert.deepEqual(out, { a: null, b: null });
  });

  it('replaces and tests the whole document with the empty path', () => {
    const out = applyJsonPatch({ a: 1 }, [
      { op: 'test', path: '', value: { a: 1 } },
      { op: 'replace', path: '', value: { b: 2 } },
    ]);
    assert.deepEqual(out, { b: 2 });
  });

  it('returns an unchanged copy for a null body', () => {
    const doc = pod();
    const out = applyJsonPatch(doc, null);
    assert.deepEqual(out, doc);
    assert.notEqual(out, doc);
  });

  it('does not share values with the patch body', () => {
    const body = [{ op: 'add', path: '/spec/extra', value: { list: [1] } }];
    const out = applyJsonPatch(pod(), body) as { spec: { extra: { list: number[] } } };
    out.spec.extra.list.push(2);
    assert.deepEqual(body[0].value, { list: [1] });
  });

  it('rejects a failing test with 422, leaving the document untouched', () => {
    const doc = pod();
    assertRejected(
      () =>
        applyJsonPatch(doc, [
          { op: 'replace', path: '/metadata/name', value: 'changed' },
          { op: 'test', path: '/metadata/labels/app', value: 'db' },
        ]),
      'testing value /metadata/labels/app failed: test failed',
    );
    assert.deepEqual(doc, pod());
  });

  it('rejects paths that do not exist with 422 and json-patch wording', () => {
    assertRejected(
      () => applyJsonPatch(pod(), [{ op: 'add', path: '/spec/nothing/here', value: 1 }]),
      'add operation does not apply: doc is missing path: "/spec/nothing/here": missing value',
    );
    assertRejected(
      () => applyJsonPatch(pod(), [{ op: 'remove', path: '/metadata/labels/zzz' }]),
      "error in remove for path: '/metadata/labels/zzz': Unable to remove nonexistent key: zzz: missing value",
    );
    assertRejected(
      () => applyJsonPatch(pod(), [{ op: 'replace', path: '/spec/containers/7', value: {} }]),
      'replace operation does not apply: doc is missing key: /spec/containers/7: missing value',
    );
    assertRejected(
      () => applyJsonPatch(pod(), [{ op: 'add', path: '/spec/containers/5', value: {} }]),
      "error in add for path: '/spec/containers/5': Unable to access invalid index: 5: invalid index referenced",
    );
    assertRejected(
      () => applyJsonPatch(pod(), [{ op: 'add', path: '/spec/containers/x', value: {} }]),
      `error in add for path: '/spec/containers/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
    );
    assertRejected(
      () => applyJsonPatch(pod(), [{ op: 'test', path: '/spec/nope/x', value: 1 }]),
      'test operation does not apply: is missing path: /spec/nope/x: missing value',
    );
    assertRejected(
      () => applyJsonPatch(pod(), [{ op: 'move', from: '/spec/nope/x', path: '/spec/y' }]),
      'move operation does not apply: doc is missing from path: /spec/nope/x: missing value',
    );
    assertRejected(
      () => applyJsonPatch(pod(), [{ op: 'add', path: 'metadata', value: 1 }]),
      'add operation does not apply: doc is missing path: "metadata": missing value',
    );
  });

  it('rejects malformed operations with 422', () => {
    assertRejected(() => applyJsonPatch(pod(), [{ op: 'frobnicate', path: '/a' }]), 'Unexpected kind: frobnicate');
    assertRejected(() => applyJsonPatch(pod(), [{ path: '/a' }]), 'Unexpected kind: unknown');
    assertRejected(() => applyJsonPatch(pod(), [{ op: 'add', value: 1 }]), 'add operation failed to decode path: missing value');
    assertRejected(
      () => applyJsonPatch(pod(), [{ op: 'replace', path: 3, value: 1 }]),
      'replace operation failed to decode path: json: cannot unmarshal number into Go value of type string',
    );
    assertRejected(
      () => applyJsonPatch(pod(), [{ op: 'copy', path: '/a' }]),
      'copy operation failed to decode from: operation, missing from field: missing value',
    );
  });

  it('answers a body that is not a list of operations with 400', () => {
    const err = statusError(() => applyJsonPatch(pod(), { op: 'add', path: '/a', value: 1 }));
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    assert.equal(err.message, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    const err2 = statusError(() => applyJsonPatch(pod(), ['add']));
    assert.equal(err2.code, 400);
    assert.equal(err2.message, 'json: cannot unmarshal string into Go value of type jsonpatch.Operation');
  });

  it(`allows ${maxJsonPatchOperations} operations and answers more with 413`, () => {
    const op = { op: 'test', path: '/metadata/name', value: 'web' };
    assert.deepEqual(applyJsonPatch(pod(), new Array(maxJsonPatchOperations).fill(op)), pod());
    const err = statusError(() => applyJsonPatch(pod(), new Array(maxJsonPatchOperations + 1).fill(op)));
    assert.equal(err.code, 413);
    assert.equal(err.reason, 'RequestEntityTooLarge');
    assert.equal(err.message, 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
  });

  it('stops copy operations that add more than 3 MiB', () => {
    const big = 'x'.repeat(1024 * 1024);
    const copies = (n: number) => Array.from({ length: n }, (_, i) => ({ op: 'copy', from: '/a', path: `/c${i}` }));
    assert.equal(Object.keys(applyJsonPatch({ a: big }, copies(2)) as object).length, 3);
    const size = JSON.stringify(big).length;
    assertRejected(
      () => applyJsonPatch({ a: big }, copies(3)),
      `Unable to complete the copy, the accumulated size increase of copy is ${3 * size}, exceeding the limit ${maxJsonPatchCopyBytes}`,
    );
  });

  it('cannot reach the prototype through a __proto__ segment', () => {
    const out = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
  });
});
