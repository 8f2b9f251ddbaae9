import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { selfSubjectReview } from './self-subject-review.js';

describe('SelfSubjectReview', () => {
  it('answers with the user, omitting empty fields, extra keys sorted', () => {
    const now = Date.UTC(2025, 0, 15, 12, 0, 0, 250);
    assert.deepEqual(
      selfSubjectReview(
        {
          username: 'system:serviceaccount:default:op',
          uid: 'u-1',
          groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
          extra: { 'authentication.kubernetes.io/pod-name': ['web'], 'authentication.kubernetes.io/credential-id': ['JTI=x'] },
        },
        'authentication.k8s.io/v1',
        now,
      ),
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
        metadata: { creationTimestamp: '2025-01-15T12:00:00Z' },
        status: {
          userInfo: {
            username: 'system:serviceaccount:default:op',
            uid: 'u-1',
            groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
            extra: { 'authentication.kubernetes.io/credential-id': ['JTI=x'], 'authentication.kubernetes.io/pod-name': ['web'] },
          },
        },
      },
    );
    const review = selfSubjectReview({ username: 'jane', groups: [], extra: {} }, 'authentication.k8s.io/v1beta1', now);
    assert.equal(review.apiVersion, 'authentication.k8s.io/v1beta1');
    assert.deepEqual(review.status, { userInfo: { username: 'jane' } });
  });
});
