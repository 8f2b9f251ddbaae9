/**
 * The SidecarSet validating webhook's rules, pure: the scenarios of Kruise's
 * pkg/webhook/sidecarset/validating/sidecarset_validating_test.go, in our
 * words, with the messages Kruise gives.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { fieldErrorMessage, type FieldError } from '@operant/apimachinery';
import type { SidecarContainer, SidecarSet, SidecarSetSpec } from '../src/api/v1alpha1/sidecarset-types.js';
import { isSelectorOverlapping, validateSidecarSet, validateSidecarSetAdmission, validateSidecarSetConflicts } from '../src/sidecarset/validation/index.js';

/** A container as Kruise's tests write them: the defaults already filled in. */
function sidecar(overrides: Partial<SidecarContainer> = {}): SidecarContainer {
  return {
    name: 'test-sidecar',
    image: 'test-image',
    imagePullPolicy: 'IfNotPresent',
    terminationMessagePolicy: 'File',
    podInjectPolicy: 'BeforeAppContainer',
    shareVolumePolicy: { type: 'disabled' },
    upgradeStrategy: { upgradeType: 'ColdUpgrade' },
    ...overrides,
  };
}

function sidecarSet(spec: SidecarSetSpec, name = 'test-sidecarset'): SidecarSet {
  return { metadata: { name }, spec };
}

const selector: LabelSelector = { matchLabels: { a: 'b' } };
const notUpdate = { type: 'NotUpdate' };

function messages(errs: FieldError[]): string[] {
  return errs.map(fieldErrorMessage);
}

describe('validateSidecarSet (sidecarset_validating_test.go TestValidateSidecarSet)', () => {
  const revisions: ControllerRevision[] = [
    { metadata: { name: 'test-sidecarset-01234' }, revision: 1 },
    { metadata: { name: 'test-sidecarset-56789' }, revision: 2 },
  ];
  const check = (spec: SidecarSetSpec) => messages(validateSidecarSet(sidecarSet(spec), undefined, { revisions }));

  it('accepts a valid SidecarSet', () => {
    assert.deepEqual(check({ selector, updateStrategy: notUpdate, containers: [sidecar()] }), []);
  });

  it('missing-selector', () => {
    assert.deepEqual(check({ updateStrategy: notUpdate, containers: [sidecar()] }), ['spec.selector: Required value: no selector defined for SidecarSet']);
  });

  it('wrong-updateStrategy: a repeated scatter term', () => {
    const strategy = { type: 'RollingUpdate', scatterStrategy: [{ key: 'key-1', value: 'value-1' }, { key: 'key-1', value: 'value-1' }] };
    assert.deepEqual(check({ selector, updateStrategy: strategy, containers: [sidecar()] }), [
      'spec.updateStrategy.scatterStrategy: Required value: duplicated key=key-1 value=value-1',
    ]);
  });

  it('wrong-selector: an invalid label value is reported twice, as the selector cannot be parsed either', () => {
    const bad = { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'app-name', operator: 'NotIn', values: ['app-group', 'app-risk-'] }] };
    const errs = check({ selector: bad, containers: [sidecar({ shareVolumePolicy: { type: 'enabled' } })] });
    assert.equal(errs.length, 2);
    assert.match(errs[0]!, /^spec\.selector\.matchExpressions\[0\]\.values\[1\]: Invalid value: "app-risk-": a valid label must be/);
    assert.match(errs[1]!, /^spec\.selector\.selector: Invalid value: /);
  });

  it('wrong-namespaceSelector', () => {
    const bad = { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'app-name', operator: 'NotIn', values: ['app-group', 'app-risk-'] }] };
    const errs = check({ selector, namespaceSelector: bad, containers: [sidecar()] });
    assert.equal(errs.length, 2);
    assert.match(errs[0]!, /^spec\.namespaceSelector\.matchExpressions\[0\]\.values\[1\]/);
  });

  it('wrong-namespace: namespace and namespaceSelector together', () => {
    assert.deepEqual(check({ selector, namespace: 'ns-test', namespaceSelector: { matchLabels: { a: 'b' } }, containers: [sidecar()] }), [
      'spec.namespace, namespaceSelector: Required value: namespace and namespaceSelector are mutually exclusive',
    ]);
  });

  it('wrong-initContainer: no image', () => {
    const init = { name: 'test-sidecar', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' };
    assert.deepEqual(check({ selector, updateStrategy: notUpdate, initContainers: [init] }), ['spec.initContainers[0].image: Required value']);
  });

  it('missing-container', () => {
    assert.deepEqual(check({ selector, updateStrategy: notUpdate }), ['spec: Required value: no initContainer or container defined for SidecarSet']);
  });

  it('wrong-containers: no shareVolumePolicy', () => {
    assert.deepEqual(check({ selector, updateStrategy: notUpdate, containers: [sidecar({ shareVolumePolicy: undefined })] }), [
      'spec.container.shareVolumePolicy: Invalid value: {}: unsupported share volume policy',
    ]);
  });

  it('an unknown podInjectPolicy', () => {
    assert.deepEqual(check({ selector, containers: [sidecar({ podInjectPolicy: 'Anywhere' })] }), [
      'spec.container.podInjectPolicy: Invalid value: "Anywhere": unsupported pod inject policy',
    ]);
  });

  it('wrong-volumes: a volume with no source', () => {
    const token = { name: 'istio-token', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { audience: 'istio-ca', expirationSeconds: 43200, path: 'istio-token' } }] } };
    assert.deepEqual(check({ selector, updateStrategy: notUpdate, containers: [sidecar()], volumes: [{ name: 'test-volume' }, token] }), [
      'spec.volumes[0]: Required value: must specify a volume type',
    ]);
  });

  it('wrong-metadata: the same annotation in two patches', () => {
    const patches = [
      { annotations: { key1: 'value1' }, patchPolicy: 'MergePatchJson' },
      { annotations: { key1: 'value1' }, patchPolicy: 'Overwrite' },
    ];
    assert.deepEqual(check({ selector, updateStrategy: notUpdate, containers: [sidecar()], patchPodMetadata: patches }), [
      'spec.patchPodMetadata: Required value: patch annotation[key1] already exist',
    ]);
  });

  it('wrong-name-injectionStrategy: no ControllerRevision has the custom version', () => {
    const errs = check({ selector, updateStrategy: notUpdate, containers: [sidecar()], injectionStrategy: { revision: { customVersion: 'normal-sidecarset-01234' } } });
    assert.deepEqual(errs, ['revision: Invalid value: null: Cannot find specific ControllerRevision, err: ControllerRevision.apps "test-sidecarset" not found']);
  });

  it('not-existing-injectionStrategy: no ControllerRevision has the name', () => {
    const errs = check({ selector, updateStrategy: notUpdate, containers: [sidecar()], injectionStrategy: { revision: { revisionName: 'test-sidecarset-678235', policy: 'Always' } } });
    assert.deepEqual(errs, ['revision: Invalid value: null: Cannot find specific ControllerRevision, err: controllerrevisions.apps "test-sidecarset-678235" not found']);
  });

  it('an existing ControllerRevision, by name or by custom version', () => {
    const labelled: ControllerRevision = {
      metadata: { name: 'x', labels: { 'kruise.io/sidecarset-name': 'test-sidecarset', 'apps.kruise.io/sidecarset-custom-version': 'v2' } },
      revision: 3,
    };
    const ok = (revision: { revisionName?: string; customVersion?: string }) =>
      messages(validateSidecarSet(sidecarSet({ selector, updateStrategy: notUpdate, containers: [sidecar()], injectionStrategy: { revision } }), undefined, { revisions: [...revisions, labelled] }));
    assert.deepEqual(ok({ revisionName: 'test-sidecarset-01234' }), []);
    assert.deepEqual(ok({ customVersion: 'v2' }), []);
    assert.deepEqual(ok({}), ['revision: Invalid value: {}: revisionName and customVersion cannot be empty simultaneously']);
  });

  it('"The initContainer in-place upgrade is not currently supported."', () => {
    const init = sidecar({ restartPolicy: 'Always' });
    assert.deepEqual(check({ selector, updateStrategy: { type: 'RollingUpdate' }, initContainers: [init] }), [
      'spec.updateStrategy: Required value: The initContainer in-place upgrade is not currently supported.',
    ]);
  });
});

describe('validateSidecarSet: the other rules of the handler', () => {
  const check = (obj: SidecarSet, old?: SidecarSet) => messages(validateSidecarSet(obj, old));

  it('the name: letters, digits and dashes, at most 63 characters', () => {
    assert.deepEqual(check(sidecarSet({ selector, containers: [sidecar()] }, 'bad.name')), [
      "metadata.name: Invalid value: \"bad.name\": sidecarset name must consist of alphanumeric characters or '-' (e.g. 'example-com', regex used for validation is '^[a-zA-Z0-9\\-]+$')",
    ]);
    assert.deepEqual(check(sidecarSet({ selector, containers: [sidecar()] }, 'a'.repeat(64))), [`metadata.name: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`]);
  });

  it('an empty selector, namespaceSelector or updateStrategy.selector', () => {
    const errs = check(sidecarSet({ selector: {}, namespaceSelector: {}, updateStrategy: { type: 'RollingUpdate', selector: {} }, containers: [sidecar()] }));
    assert.deepEqual(errs, [
      'spec.selector: Invalid value: {}: empty selector is not valid for sidecarset.',
      'spec.namespaceSelector: Invalid value: {}: empty selector is not valid for sidecarset.',
      'spec.updateStrategy.selector: Invalid value: {}: empty selector is not valid for sidecarset.',
    ]);
  });

  it('partition with updateStrategy.selector, malformed or negative int-or-strings', () => {
    const strategy = { type: 'RollingUpdate', partition: '10%', selector: { matchLabels: { canary: 'true' } }, maxUnavailable: -1 };
    const errs = check(sidecarSet({ selector, updateStrategy: strategy, containers: [sidecar()] }));
    assert.equal(errs.length, 2);
    assert.match(errs[0]!, /^updateStrategy: Invalid value: .*: Partition and Selector cannot be used together$/);
    assert.equal(errs[1], 'spec.updateStrategy.maxUnavailable: Invalid value: -1: must be greater than or equal to 0');
    assert.deepEqual(check(sidecarSet({ selector, updateStrategy: { type: 'RollingUpdate', partition: '50x' }, containers: [sidecar()] })), [
      "spec.updateStrategy.partition: Invalid value: \"50x\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    ]);
    // A partition of 0 is no partition, so it may go with a selector.
    assert.deepEqual(check(sidecarSet({ selector, updateStrategy: { type: 'RollingUpdate', partition: 0, selector }, containers: [sidecar()] })), []);
  });

  it('containers that would not pass pod validation: names, images, duplicates, volume mounts', () => {
    const errs = check(
      sidecarSet({
        selector,
        containers: [
          sidecar({ name: 'Bad_Name' }),
          sidecar({ name: 'log', image: '' }),
          sidecar({ name: 'log', volumeMounts: [{ name: 'missing', mountPath: '/a' }] }),
        ],
        initContainers: [sidecar({ name: 'log', podInjectPolicy: 'AfterAppContainer' })],
        volumes: [{ name: 'data', emptyDir: {} }, { name: 'data', emptyDir: {} }],
      }),
    );
    assert.deepEqual(errs, [
      'spec.volumes[1].name: Duplicate value: "data"',
      "spec.containers[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      'spec.containers[1].image: Required value',
      'spec.containers[2].volumeMounts[0].name: Invalid value: "missing": not found',
      'spec.containers[2].name: Duplicate value: "log"',
      'spec.initContainers[0].name: Duplicate value: "log"',
    ]);
  });

  it('transferEnv field references: only a pod\'s labels or annotations', () => {
    const from = (fieldPath: string) => sidecar({ transferEnv: [{ sourceContainerNameFrom: { fieldRef: { apiVersion: 'v1', fieldPath } }, envName: 'X' }] });
    assert.deepEqual(check(sidecarSet({ selector, containers: [from("metadata.labels['app']")] })), []);
    assert.deepEqual(check(sidecarSet({ selector, containers: [from('metadata.name')] })), [
      'spec[0].transferEnv.fieldRef.fieldPath: Invalid value: "metadata.name": error converting fieldPath: field label not supported: metadata.name',
    ]);
  });

  it('hot upgrade is refused until this operator implements it (our rule, not Kruise\'s)', () => {
    assert.deepEqual(check(sidecarSet({ selector, containers: [sidecar({ upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: 'empty:1' } })] })), [
      'spec.containers[0].upgradeStrategy.upgradeType: Unsupported value: "HotUpgrade": supported values: "ColdUpgrade"',
    ]);
  });

  it('on update, a container keeps its upgradeType, and no container is added', () => {
    const old = sidecarSet({ selector, containers: [sidecar({ name: 'a' })] });
    const changed = sidecarSet({ selector, containers: [sidecar({ name: 'a', upgradeStrategy: { upgradeType: 'HotUpgrade' } }), sidecar({ name: 'b' })] });
    const errs = check(changed, old);
    assert.ok(errs.includes('spec.containers.upgradeStrategy.upgradeType: Invalid value: "a": container a upgradeType is immutable'));
    assert.ok(errs.includes('spec.containers.name: Invalid value: "b": container b is not found'));
  });
});

describe('conflicts with other SidecarSets (TestSidecarSetNameConflict, TestSidecarSetPodMetadataConflict, TestSidecarSetVolumeConflict)', () => {
  const noNamespaces = () => undefined;
  const conflicts = (obj: SidecarSet, others: SidecarSet[]) => messages(validateSidecarSetConflicts(obj, others, noNamespaces));

  it('test1: the same container and init container names, an identical volume', () => {
    const spec = (): SidecarSetSpec => ({
      selector,
      containers: [{ name: 'container-name' }],
      initContainers: [{ name: 'init-name' }],
      volumes: [{ name: 'volume-name' }],
    });
    assert.deepEqual(conflicts(sidecarSet(spec(), 'sidecarset2'), [sidecarSet(spec(), 'sidecarset1')]), [
      'spec.containers: Invalid value: "init-name": container init-name already exist in sidecarset1',
      'spec.containers: Invalid value: "container-name": container container-name already exist in sidecarset1',
    ]);
  });

  it('test2 and test3: overlapping namespace selectors conflict, disjoint ones do not', () => {
    const make = (name: string, app: string) => sidecarSet({ selector, namespaceSelector: { matchLabels: { app } }, containers: [{ name: 'container-name' }] }, name);
    assert.equal(conflicts(make('sidecarset2', 'nginx'), [make('sidecarset1', 'nginx')]).length, 1);
    assert.equal(conflicts(make('sidecarset2', 'nginx'), [make('sidecarset1', 'redis')]).length, 0);
  });

  it('a namespace against the other\'s namespace selector, through the namespace\'s labels', () => {
    const named = sidecarSet({ selector, namespace: 'team-a', containers: [{ name: 'c' }] }, 'named');
    const selecting = sidecarSet({ selector, namespaceSelector: { matchLabels: { team: 'a' } }, containers: [{ name: 'c' }] }, 'selecting');
    const labels = (team: string) => (ns: string) => (ns === 'team-a' ? { team } : undefined);
    assert.equal(validateSidecarSetConflicts(named, [selecting], labels('a')).length, 1);
    assert.equal(validateSidecarSetConflicts(selecting, [named], labels('a')).length, 1);
    assert.equal(validateSidecarSetConflicts(named, [selecting], labels('b')).length, 0);
    assert.equal(validateSidecarSetConflicts(selecting, [named], labels('b')).length, 0);
    const otherNamespace = sidecarSet({ selector, namespace: 'team-b', containers: [{ name: 'c' }] }, 'other');
    assert.equal(validateSidecarSetConflicts(named, [otherNamespace], labels('a')).length, 0);
  });

  const withPatch = (name: string, patchPolicy: string, annotations: Record<string, string>) =>
    sidecarSet({ selector, containers: [{ name: `${name}-c` }], patchPodMetadata: [{ patchPolicy, annotations }] }, name);

  it('sidecarset annotation key conflict: Overwrite against MergePatchJson', () => {
    assert.deepEqual(conflicts(withPatch('sidecarset2', 'Overwrite', { key1: 'value1' }), [withPatch('sidecarset1', 'MergePatchJson', { key1: 'value1' })]), [
      'spec.patchPodMetadata: Invalid value: "key1": annotation key1 is in conflict with sidecarset sidecarset1',
    ]);
  });

  it('sidecarset annotation key different', () => {
    assert.deepEqual(conflicts(withPatch('sidecarset2', 'Retain', { key1: 'value1' }), [withPatch('sidecarset1', 'Overwrite', { key2: 'value2' })]), []);
  });

  it('sidecarset annotation key same, and json: two merges are fine', () => {
    assert.deepEqual(conflicts(withPatch('sidecarset2', 'MergePatchJson', { 'oom-score': '{"log-agent": 1}' }), [withPatch('sidecarset1', 'MergePatchJson', { 'oom-score': '{"envoy": 1}' })]), []);
  });

  const withVolumes = (name: string, volumes: SidecarSetSpec['volumes']) => sidecarSet({ selector, containers: [{ name: `${name}-c` }], volumes }, name);

  it('sidecarset volume name different', () => {
    assert.deepEqual(conflicts(withVolumes('s2', [{ name: 'volume-1' }, { name: 'volume-2' }]), [withVolumes('s1', [{ name: 'volume-3' }, { name: 'volume-4' }])]), []);
  });

  it('sidecarset volume name same and equal', () => {
    const hostPath = { name: 'volume-2', hostPath: { path: '/home/work' } };
    assert.deepEqual(conflicts(withVolumes('s2', [{ name: 'volume-1' }, hostPath]), [withVolumes('s1', [{ hostPath: { path: '/home/work' }, name: 'volume-2' }, { name: 'volume-3' }])]), []);
  });

  it('sidecarset volume name same, but not equal', () => {
    assert.deepEqual(
      conflicts(withVolumes('s2', [{ name: 'volume-1' }, { name: 'volume-2', hostPath: { path: '/home/work-1' } }]), [withVolumes('s1', [{ name: 'volume-2', hostPath: { path: '/home/work-2' } }, { name: 'volume-3' }])]),
      ['spec.volumes: Invalid value: "volume-2": volume volume-2 is in conflict with sidecarset s1'],
    );
  });

  it('validateSidecarSetAdmission looks at the others only once the SidecarSet itself is valid', () => {
    const other = sidecarSet({ selector, containers: [sidecar()] }, 'other');
    const invalid = sidecarSet({ containers: [sidecar()] }, 'mine');
    assert.deepEqual(messages(validateSidecarSetAdmission(invalid, undefined, { others: [other], namespaceLabels: noNamespaces })), [
      'spec.selector: Required value: no selector defined for SidecarSet',
    ]);
    const valid = sidecarSet({ selector, containers: [sidecar()] }, 'mine');
    assert.deepEqual(messages(validateSidecarSetAdmission(valid, undefined, { others: [other, valid], namespaceLabels: noNamespaces })), [
      'spec.containers: Invalid value: "test-sidecar": container test-sidecar already exist in other',
    ]);
  });
});

describe('isSelectorOverlapping (sidecarset_validating_test.go TestSelectorConflict)', () => {
  const cases: Array<[string, LabelSelector, LabelSelector, boolean]> = [
    ['the same label', { matchLabels: { a: 'h' } }, { matchLabels: { a: 'h' } }, true],
    ['one key, two values', { matchLabels: { a: 'h' } }, { matchLabels: { a: 'i' } }, false],
    ['different keys', { matchLabels: { a: 'h' } }, { matchLabels: { b: 'i' } }, true],
    ['one of three keys differs', { matchLabels: { a: 'h', b: 'i', c: 'j' } }, { matchLabels: { a: 'h', b: 'x', c: 'j' } }, false],
    ['a value in an In list', { matchLabels: { a: 'h' } }, { matchExpressions: [{ key: 'a', operator: 'In', values: ['h', 'i', 'j'] }] }, true],
    ['a value outside an In list', { matchLabels: { a: 'h' } }, { matchExpressions: [{ key: 'a', operator: 'In', values: ['i', 'j'] }] }, false],
    ['NotIn covering the value', { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['h', 'i'] }] }, { matchLabels: { a: 'h' } }, false],
    ['Exists meets a value', { matchLabels: { a: 'h' } }, { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, true],
    ['DoesNotExist meets a value', { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, { matchLabels: { a: 'h' } }, false],
  ];
  for (const [name, a, b, expected] of cases) {
    it(name, () => {
      assert.equal(isSelectorOverlapping(a, b), expected);
      assert.equal(isSelectorOverlapping(b, a), expected, 'symmetric');
    });
  }
});
