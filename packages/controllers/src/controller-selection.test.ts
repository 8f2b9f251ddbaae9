import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { selectControllers, simulatedControllers } from './controller-selection.js';

describe('selectControllers (kube-controller-manager --controllers)', () => {
  it('* is every controller; -name turns one off; names alone choose', () => {
    assert.deepEqual([...selectControllers(['*'])].sort(), [...simulatedControllers].sort());
    assert.deepEqual([...selectControllers(['*', '-deployment'])].sort(), ['cronjob', 'csrcleaner', 'daemonset', 'disruption', 'endpoint', 'endpointslice', 'horizontalpodautoscaling', 'job', 'nodelifecycle', 'persistentvolume-binder', 'podgc', 'replicaset', 'replicationcontroller', 'resourcequota', 'root-ca-cert-publisher', 'statefulset']);
    assert.deepEqual([...selectControllers(['job', 'cronjob'])].sort(), ['cronjob', 'job']);
    assert.deepEqual([...selectControllers([])], []);
  });

  it('refuses an unknown name in kube-controller-manager\'s words', () => {
    assert.throws(() => selectControllers(['*', '-nope']), /^Error: "nope" is not in the list of known controllers$/);
  });
});
