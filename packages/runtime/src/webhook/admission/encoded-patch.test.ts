/**
 * The server writes a patch `patched` made into its answer without serializing
 * it again: the answer's text must be exactly `JSON.stringify` of the review,
 * and any review the shortcut cannot be sure of is left to `JSON.stringify`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionRequest } from './types.js';
import { reviewWithEncodedPatch } from './encoded-patch.js';
import { patched } from './responses.js';
import { completeReview } from './review.js';

const request = { uid: 'u-1', kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE' } as AdmissionRequest;

function review(original: object, mutated: object, warnings?: string[]): object {
  return completeReview('admission.k8s.io/v1', request, patched(original, mutated, warnings));
}

describe('reviewWithEncodedPatch', () => {
  test('gives the text JSON.stringify gives, for ASCII and UTF-8 patches, with warnings', () => {
    const cases: Array<[object, object, string[]?]> = [
      [{ a: 1 }, { a: 1, b: 'x' }],
      [{ spec: { name: 'é' } }, { spec: { name: 'é', note: 'naïve ✓ \u{1F600}' } }, ['defaulted "note"']],
      [{ a: [1, 2] }, { a: [1] }, []],
    ];
    for (const [original, mutated, warnings] of cases) {
      const r = review(original, mutated, warnings);
      const text = reviewWithEncodedPatch(r);
      assert.ok(text !== undefined, 'the shortcut applies to a patch patched() made');
      assert.equal(text, JSON.stringify(r));
    }
  });

  test('leaves reviews it cannot be sure of to JSON.stringify', () => {
    const changed = review({ a: 1 }, { a: 2 }) as { response: { patch: string } };
    changed.response.patch = Buffer.from('[]').toString('base64');
    assert.equal(reviewWithEncodedPatch(changed), undefined, 'a patch replaced after patched()');

    const ambiguous = review({ a: 1 }, { a: 2 }) as { response: Record<string, unknown> };
    ambiguous.response.auditAnnotations = { patch: '' };
    assert.equal(reviewWithEncodedPatch(ambiguous), undefined, 'another empty "patch" member');
    assert.equal((ambiguous.response as { patch: string }).patch.length > 0, true, 'the patch is put back');

    assert.equal(reviewWithEncodedPatch(review({ a: 1 }, { a: 1 })), undefined, 'no patch');
    assert.equal(reviewWithEncodedPatch({ apiVersion: 'v1', kind: 'Status' }), undefined, 'no review');
  });
});
