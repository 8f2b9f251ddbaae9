import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRole, PolicyRule } from './attributes.js';
import { aggregatedRules, effectiveClusterRoleRules } from './aggregation.js';

function cr(name: string, labels: Record<string, string>, rules: PolicyRule[]): ClusterRole {
  return { metadata: { name, labels }, rules };
}

const getPods: PolicyRule = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
const listPods: PolicyRule = { apiGroups: [''], resources: ['pods'], verbs: ['list'] };
const getFoos: PolicyRule = { apiGroups: ['example.com'], resources: ['foos'], verbs: ['get'] };

describe('aggregatedRules', () => {
  it('a role without aggregationRule keeps its rules', () => {
    const r = cr('plain', {}, [getPods]);
    assert.deepEqual(aggregatedRules(r, [r]), [getPods]);
  });

  it('matchLabels: roles by name, rules in order, duplicates once, itself excluded', () => {
    const agg: ClusterRole = {
      metadata: { name: 'agg', labels: { 'x/agg': 'true' } },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'x/agg': 'true' } }] },
      rules: [getFoos],
    };
    const b = cr('b', { 'x/agg': 'true' }, [listPods, { ...getPods }]);
    const a = cr('a', { 'x/agg': 'true' }, [getPods]);
    const other = cr('c', { 'x/agg': 'false' }, [getFoos]);
    assert.deepEqual(aggregatedRules(agg, [agg, b, other, a]), [getPods, listPods]);
  });

  it('matchExpressions and several selectors', () => {
    const agg: ClusterRole = {
      metadata: { name: 'agg' },
      aggregationRule: {
        clusterRoleSelectors: [
          { matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'silver'] }] },
          { matchExpressions: [{ key: 'extra', operator: 'Exists' }] },
        ],
      },
    };
    const roles = [
      agg,
      cr('z-gold', { tier: 'gold' }, [getPods]),
      cr('a-silver', { tier: 'silver' }, [listPods]),
      cr('bronze', { tier: 'bronze' }, [getFoos]),
      cr('extra', { extra: '' }, [getFoos, getPods]),
    ];
    assert.deepEqual(aggregatedRules(agg, roles), [listPods, getPods, getFoos]);
  });

  it('an empty selector list aggregates nothing; a bad selector is skipped', () => {
    const none: ClusterRole = { metadata: { name: 'none' }, aggregationRule: { clusterRoleSelectors: [] } };
    const bad: ClusterRole = {
      metadata: { name: 'bad' },
      aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'k', operator: 'Bogus' }] }, { matchLabels: { k: 'v' } }] },
    };
    const roles = [none, bad, cr('x', { k: 'v' }, [getPods])];
    assert.deepEqual(aggregatedRules(none, roles), []);
    assert.deepEqual(aggregatedRules(bad, roles), [getPods]);
  });

  it('nested aggregation (admin ⊇ edit ⊇ view) and cycles', () => {
    const view: ClusterRole = { metadata: { name: 'view', labels: { edit: 'true' } }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { view: 'true' } }] } };
    const edit: ClusterRole = { metadata: { name: 'edit', labels: { admin: 'true' } }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { edit: 'true' } }] } };
    const admin: ClusterRole = { metadata: { name: 'admin' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { admin: 'true' } }] } };
    const roles = [admin, edit, view, cr('to-view', { view: 'true' }, [getPods]), cr('to-edit', { edit: 'true' }, [listPods]), cr('to-admin', { admin: 'true' }, [getFoos])];
    assert.deepEqual(aggregatedRules(admin, roles), [listPods, getPods, getFoos]);
    const all = effectiveClusterRoleRules(roles);
    assert.deepEqual(all.get('view'), [getPods]);
    assert.deepEqual(all.get('edit'), [listPods, getPods]);

    const x: ClusterRole = { metadata: { name: 'x', labels: { y: 'true' } }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'true' } }] }, rules: [getFoos] };
    const y: ClusterRole = { metadata: { name: 'y', labels: { x: 'true' } }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { y: 'true' } }] }, rules: [getPods] };
    assert.deepEqual(aggregatedRules(x, [x, y]), [getFoos]);
  });
});
