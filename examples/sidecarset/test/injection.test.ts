/**
 * Pod injection, pure: the scenarios of Kruise's
 * pkg/webhook/pod/mutating/sidecarset_test.go and
 * pkg/control/sidecarcontrol/util_test.go, with Kruise's fixtures retold.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import type { SidecarContainer, SidecarSet } from '../src/api/v1alpha1/sidecarset-types.js';
import { readPodHashes, SidecarSetHashAnnotation, SidecarSetHashWithoutImageAnnotation, SidecarSetListAnnotation, writePodHashes } from '../src/sidecarset/annotations.js';
import { injectSidecarSets } from '../src/sidecarset/injection/inject.js';
import { sidecarSetMatchesPod, sidecarSetsForPod } from '../src/sidecarset/injection/matching.js';
import { mergeSecrets, mergeSidecarContainers } from '../src/sidecarset/injection/merge.js';
import { patchPodMetadata } from '../src/sidecarset/injection/pod-metadata.js';
import { transferredEnv } from '../src/sidecarset/injection/sidecar-env.js';

const now = new Date('2024-05-01T10:00:00.123Z');
const noNamespaces = () => ({});

// Kruise's fixtures (sidecarset_test.go), in TypeScript.
const sidecarSet1: SidecarSet = {
  metadata: { name: 'sidecarset1', annotations: { [SidecarSetHashAnnotation]: 'c4k2dbb95d' }, labels: {} },
  spec: {
    selector: { matchLabels: { app: 'suxing-test' } },
    initContainers: [
      { name: 'init-2', image: 'busybox:1.0.0' },
      { name: 'init-1', image: 'busybox:1.0.0' },
    ],
    containers: [
      { name: 'dns-f', image: 'dns-f-image:1.0', podInjectPolicy: 'BeforeAppContainer', shareVolumePolicy: { type: 'disabled' } },
      { name: 'log-agent', image: 'log-agent-image:1.0', podInjectPolicy: 'AfterAppContainer', shareVolumePolicy: { type: 'disabled' } },
    ],
  },
};

const sidecarsetWithTransferEnv: SidecarSet = {
  metadata: { name: 'sidecarset2', annotations: { [SidecarSetHashAnnotation]: 'c4k2dbb95d' }, labels: {} },
  spec: {
    selector: { matchLabels: { app: 'suxing-test' } },
    initContainers: [
      { name: 'dns-e', image: 'dns-e-image:1.0', volumeMounts: [{ name: 'volume-1', mountPath: '' }], podInjectPolicy: 'BeforeAppContainer', transferEnv: [{ sourceContainerName: 'nginx', envName: 'hello2' }] },
    ],
    containers: [
      {
        name: 'dns-f',
        image: 'dns-f-image:1.0',
        volumeMounts: [{ name: 'volume-1', mountPath: '' }],
        podInjectPolicy: 'BeforeAppContainer',
        shareVolumePolicy: { type: 'disabled' },
        transferEnv: [{ sourceContainerName: 'nginx', envName: 'hello2' }],
      },
    ],
    volumes: [{ name: 'volume-1' }, { name: 'volume-2' }],
  },
};

const sidecarSet3: SidecarSet = {
  metadata: { name: 'sidecarset3', annotations: { [SidecarSetHashAnnotation]: 'gm967682cm' }, labels: {} },
  spec: {
    selector: { matchLabels: { app: 'suxing-test' } },
    containers: [
      {
        name: 'dns-f',
        image: 'dns-f-image:1.0',
        volumeMounts: [
          { name: 'volume-1', mountPath: '/a/b/c' },
          { name: 'volume-2', mountPath: '/d/e/f' },
        ],
        podInjectPolicy: 'AfterAppContainer',
        shareVolumePolicy: { type: 'enabled' },
      },
      { name: 'log-agent', image: 'log-agent-image:1.0', podInjectPolicy: 'AfterAppContainer', shareVolumePolicy: { type: 'disabled' } },
    ],
    volumes: [{ name: 'volume-1' }, { name: 'volume-2' }],
  },
};

const sidecarSetWithStaragent: SidecarSet = {
  metadata: { name: 'sidecarset3', annotations: { [SidecarSetHashAnnotation]: 'gm967682cm' }, labels: {} },
  spec: {
    selector: { matchLabels: { app: 'suxing-test' } },
    initContainers: [
      {
        name: 'dns-e',
        image: 'dns-e-image:1.0',
        volumeMounts: [
          { name: 'volume-3', mountPath: '/g/h/i' },
          { name: 'volume-4', mountPath: '/j/k/l' },
          { name: 'volume-staragent', mountPath: '/staragent' },
        ],
        podInjectPolicy: 'BeforeAppContainer',
        shareVolumePolicy: { type: 'enabled' },
      },
    ],
    containers: [
      {
        name: 'dns-f',
        image: 'dns-f-image:1.0',
        volumeMounts: [
          { name: 'volume-1', mountPath: '/a/b/c' },
          { name: 'volume-2', mountPath: '/d/e/f' },
          { name: 'volume-staragent', mountPath: '/staragent' },
        ],
        podInjectPolicy: 'AfterAppContainer',
        shareVolumePolicy: { type: 'enabled' },
      },
    ],
    volumes: [{ name: 'volume-1' }, { name: 'volume-2' }, { name: 'volume-staragent' }, { name: 'volume-3' }, { name: 'volume-4' }],
  },
};

const pod1: Pod = {
  metadata: { name: 'test-pod', namespace: 'default', labels: { app: 'suxing-test' } },
  spec: {
    initContainers: [{ name: 'init-0', image: 'busybox:1.0.0' }],
    containers: [
      {
        name: 'nginx',
        image: 'nginx:1.15.1',
        env: [
          { name: 'hello1', value: 'world1' },
          { name: 'hello2', value: 'world2' },
        ],
        volumeMounts: [
          { name: 'volume-a', mountPath: '/a/b' },
          { name: 'volume-b', mountPath: '/e/f' },
        ],
      },
    ],
    volumes: [{ name: 'volume-a' }, { name: 'volume-b' }],
  },
};

const podWithStaragent: Pod = {
  metadata: { name: 'test-pod', namespace: 'default', labels: { app: 'suxing-test' } },
  spec: {
    containers: [
      {
        name: 'nginx',
        image: 'nginx:1.15.1',
        env: [
          { name: 'hello1', value: 'world1' },
          { name: 'hello2', value: 'world2' },
        ],
        volumeMounts: [
          { name: 'volume-a', mountPath: '/a/b' },
          { name: 'volume-b', mountPath: '/e/f' },
          { name: 'volume-staragent', mountPath: '/staragent' },
        ],
      },
    ],
    volumes: [{ name: 'volume-a' }, { name: 'volume-b' }, { name: 'volume-staragent' }],
  },
};

const copy = <T>(v: T): T => structuredClone(v);

/** What the pod webhook does with a pod and the SidecarSets in the cluster. */
function admit(pod: Pod, sets: SidecarSet[]): Pod {
  return injectSidecarSets(pod, sidecarSetsForPod(pod, sets, noNamespaces), now) ?? pod;
}

const names = (containers: Container[] | undefined) => (containers ?? []).map((c) => c.name);

describe('injectSidecarSets (pkg/webhook/pod/mutating/sidecarset_test.go)', () => {
  it('TestPodHasNoMatchedSidecarSet: a pod the selector does not match is left alone', () => {
    const pod = copy(pod1);
    pod.metadata!.labels = { app: 'doesnt-match' };
    assert.equal(injectSidecarSets(pod, sidecarSetsForPod(pod, [sidecarSet1], noNamespaces), now), undefined);
  });

  it('TestMergeSidecarSecrets: pull secrets merged by name, the pod\'s first', () => {
    const run = (sidecarSecrets: string[] | undefined, podSecrets: string[] | undefined) => {
      const set = copy(sidecarSet1);
      set.spec!.imagePullSecrets = sidecarSecrets?.map((name) => ({ name }));
      const pod = copy(pod1);
      pod.spec!.imagePullSecrets = podSecrets?.map((name) => ({ name }));
      return admit(pod, [set]).spec!.imagePullSecrets?.map((s) => s.name);
    };
    assert.deepEqual(run(['s0', 's1', 's2'], ['s2', 's3', 's3']), ['s2', 's3', 's0', 's1']);
    assert.deepEqual(run(['s0', 's1', 's2'], ['s3', 's4', 's5']), ['s3', 's4', 's5', 's0', 's1', 's2']);
    assert.deepEqual(run(['s0', 's1', 's2'], undefined), ['s0', 's1', 's2']);
    assert.deepEqual(run(undefined, ['s3', 's4', 's5']), ['s3', 's4', 's5']);
    assert.deepEqual(mergeSecrets(undefined, []), undefined);
  });

  it('TestInjectionStrategyPaused: a paused SidecarSet injects nothing', () => {
    const set = copy(sidecarSet1);
    set.spec!.injectionStrategy = { paused: true };
    assert.deepEqual(sidecarSetsForPod(pod1, [set], noNamespaces), []);
  });

  it('TestInjectMetadata: Retain and MergePatchJson from two SidecarSets', () => {
    const demo1 = copy(sidecarSet1);
    demo1.spec!.patchPodMetadata = [
      { patchPolicy: 'MergePatchJson', annotations: { key1: '{"log-agent":1}' } },
      { patchPolicy: 'Retain', annotations: { key: 'envoy=1,log=2' } },
    ];
    const demo2 = copy(sidecarSet1);
    demo2.metadata!.name = 'sidecarset2';
    demo2.spec!.patchPodMetadata = [{ patchPolicy: 'MergePatchJson', annotations: { key1: '{"envoy":2}' } }];
    const out = admit(copy(pod1), [demo1, demo2]);
    assert.equal(out.metadata!.annotations!.key1, '{"envoy":2,"log-agent":1}');
    assert.equal(out.metadata!.annotations!.key, 'envoy=1,log=2');
  });

  it('TestSidecarSetPodInjectPolicy: Before and After, init containers after the pod\'s, sorted', () => {
    const out = admit(copy(pod1), [copy(sidecarSet1)]);
    assert.deepEqual(names(out.spec!.containers), ['dns-f', 'nginx', 'log-agent']);
    assert.deepEqual(names(out.spec!.initContainers), ['init-0', 'init-1', 'init-2']);
  });

  it('TestSidecarVolumesAppend: only the volumes the sidecars mount, after the pod\'s', () => {
    const out = admit(copy(pod1), [copy(sidecarsetWithTransferEnv)]);
    assert.deepEqual(
      out.spec!.volumes!.map((v) => v.name),
      ['volume-a', 'volume-b', 'volume-1'],
    );
  });

  it('TestPodSidecarSetHashCompatibility: the old annotation form is read and rewritten in the new one', () => {
    const pod = copy(pod1);
    pod.metadata!.annotations = {
      [SidecarSetHashAnnotation]: '{"sidecarset-test":"bv6d2fbw97wz8xx5x4v4wddwbd5z744wcf7c786dd4dvxvd5w6w424df7vx47989"}',
      [SidecarSetHashWithoutImageAnnotation]: '{"sidecarset-test":"54x5977vf9zz4248w7v44456zf655b8bcffv7x74w88f6dwb994fw48b8f9b8959"}',
    };
    const out = admit(pod, [copy(sidecarSet1)]);
    const hashes = readPodHashes(out.metadata!.annotations, SidecarSetHashAnnotation);
    assert.equal(hashes['sidecarset-test']!.hash, 'bv6d2fbw97wz8xx5x4v4wddwbd5z744wcf7c786dd4dvxvd5w6w424df7vx47989');
    assert.equal(hashes['sidecarset1']!.hash, 'c4k2dbb95d');
    assert.equal(
      out.metadata!.annotations![SidecarSetHashWithoutImageAnnotation],
      '{"sidecarset-test":{"updateTimestamp":null,"hash":"54x5977vf9zz4248w7v44456zf655b8bcffv7x74w88f6dwb994fw48b8f9b8959","sidecarSetName":"sidecarset-test","sidecarList":null},' +
        '"sidecarset1":{"updateTimestamp":"2024-05-01T10:00:00Z","hash":"","sidecarSetName":"sidecarset1","sidecarList":["dns-f","log-agent"]}}',
    );
  });

  it('refuses a hash annotation in neither form, as Kruise does', () => {
    const pod = copy(pod1);
    pod.metadata!.annotations = { [SidecarSetHashAnnotation]: '{"a":"x","b":{"hash":"y"}}' };
    assert.throws(() => admit(pod, [copy(sidecarSet1)]), /invalid annotations\[kruise.io\/sidecarset-hash\]/);
  });

  describe('TestPodVolumeMountsAppend: shareVolumePolicy enabled', () => {
    const set = copy(sidecarSetWithStaragent);
    set.spec!.containers = set.spec!.containers!.slice(0, 1);
    const mounts = (c: Container | undefined) => (c?.volumeMounts ?? []).map((m) => m.mountPath);
    const envs = (c: Container | undefined) => (c?.env ?? []).map((e) => e.name);

    it('append normal volumeMounts', () => {
      const out = admit(copy(podWithStaragent), [copy(set)]);
      assert.deepEqual(mounts(out.spec!.initContainers![0]).sort(), ['/a/b', '/e/f', '/g/h/i', '/j/k/l', '/staragent']);
      assert.deepEqual(mounts(out.spec!.containers[1]).sort(), ['/a/b', '/a/b/c', '/d/e/f', '/e/f', '/staragent']);
    });

    it('append volumeMounts SubPathExpr, volumes with expanded subpath: the variables come along', () => {
      const pod = copy(podWithStaragent);
      pod.spec!.containers[0]!.volumeMounts!.push({ name: 'volume-expansion', mountPath: '/e/expansion', subPathExpr: 'foo/$(POD_NAME)/$(OD_NAME)/conf' });
      pod.spec!.containers[0]!.env!.push({ name: 'POD_NAME', value: 'bar' }, { name: 'OD_NAME', value: 'od_name' });
      const out = admit(pod, [copy(set)]);
      for (const c of [out.spec!.initContainers![0], out.spec!.containers[1]]) {
        assert.ok(mounts(c).includes('/e/expansion'));
        assert.ok(envs(c).includes('POD_NAME') && envs(c).includes('OD_NAME'));
      }
    });

    it('append volumeMounts SubPathExpr, subpath with no expansion, or empty', () => {
      for (const subPathExpr of ['foo', '']) {
        const pod = copy(podWithStaragent);
        pod.spec!.containers[0]!.volumeMounts!.push({ name: 'volume-expansion', mountPath: '/e/expansion', subPathExpr });
        const out = admit(pod, [copy(set)]);
        assert.ok(mounts(out.spec!.containers[1]).includes('/e/expansion'));
        assert.deepEqual(envs(out.spec!.containers[1]), ['IS_INJECTED']);
      }
    });
  });

  it('TestSidecarSetTransferEnv: IS_INJECTED, then the transferred variable', () => {
    const set = copy(sidecarsetWithTransferEnv);
    set.spec!.initContainers![0]!.podInjectPolicy = '';
    const out = admit(copy(pod1), [set]);
    assert.deepEqual(out.spec!.initContainers![1]!.env, [{ name: 'IS_INJECTED', value: 'true' }, { name: 'hello2', value: 'world2' }]);
    assert.deepEqual(out.spec!.containers[0]!.env, [{ name: 'IS_INJECTED', value: 'true' }, { name: 'hello2', value: 'world2' }]);
  });

  it('a sidecar\'s own variable wins over a transferred one of the same name', () => {
    const set = copy(sidecarsetWithTransferEnv);
    set.spec!.containers![0]!.env = [{ name: 'hello2', value: 'mine' }];
    const out = admit(copy(pod1), [set]);
    assert.deepEqual(out.spec!.containers[0]!.env, [{ name: 'hello2', value: 'mine' }, { name: 'IS_INJECTED', value: 'true' }]);
  });

  it('TestSidecarSetHashInject: each matching SidecarSet\'s hash is recorded', () => {
    const notMatching = copy(sidecarSet1);
    notMatching.spec!.selector = { matchLabels: { app: 'doesnt-match' } };
    const out = admit(copy(pod1), [notMatching, copy(sidecarsetWithTransferEnv), copy(sidecarSet3)]);
    const hashes = readPodHashes(out.metadata!.annotations, SidecarSetHashAnnotation);
    assert.deepEqual(Object.fromEntries(Object.entries(hashes).map(([k, v]) => [k, v.hash])), { sidecarset2: 'c4k2dbb95d', sidecarset3: 'gm967682cm' });
  });

  it('TestSidecarSetNameInject: the injected list is sorted and comma-separated', () => {
    const out = admit(copy(pod1), [copy(sidecarSet3), copy(sidecarSet1)]);
    assert.equal(out.metadata!.annotations![SidecarSetListAnnotation], 'sidecarset1,sidecarset3');
  });

  it('records the full SidecarSetUpgradeSpec, with controllerRevision from status.latestRevision', () => {
    const set = copy(sidecarSet1);
    set.metadata!.annotations![SidecarSetHashWithoutImageAnnotation] = 'without-image';
    set.spec!.initContainers![0]!.restartPolicy = 'Always'; // a native sidecar is listed too
    set.status = { matchedPods: 0, updatedPods: 0, readyPods: 0, latestRevision: 'sidecarset1-5d8c9' };
    const out = admit(copy(pod1), [set]);
    assert.equal(
      out.metadata!.annotations![SidecarSetHashAnnotation],
      '{"sidecarset1":{"updateTimestamp":"2024-05-01T10:00:00Z","hash":"c4k2dbb95d","sidecarSetName":"sidecarset1","sidecarList":["dns-f","init-2","log-agent"],"controllerRevision":"sidecarset1-5d8c9"}}',
    );
    assert.equal(
      out.metadata!.annotations![SidecarSetHashWithoutImageAnnotation],
      '{"sidecarset1":{"updateTimestamp":"2024-05-01T10:00:00Z","hash":"without-image","sidecarSetName":"sidecarset1","sidecarList":["dns-f","init-2","log-agent"]}}',
    );
  });

  it('the example of SIDECARSET.md: [main] with nginx-sidecar (Before) and busybox-sidecar (After)', () => {
    const set: SidecarSet = {
      metadata: { name: 'example', annotations: {} },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        containers: [
          { name: 'nginx-sidecar', image: 'nginx:1.25', podInjectPolicy: 'BeforeAppContainer' },
          { name: 'busybox-sidecar', image: 'busybox:1.36', podInjectPolicy: 'AfterAppContainer' },
        ],
      },
    };
    const pod: Pod = { metadata: { name: 'p', namespace: 'default', labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'app:1' }] } };
    assert.deepEqual(names(admit(pod, [set]).spec!.containers), ['nginx-sidecar', 'main', 'busybox-sidecar']);
    assert.equal(pod.spec!.containers.length, 1, 'the input pod is not changed');
  });
});

describe('mergeSidecarContainers (TestMergeSidecarContainers, TestInjectInitContainerSort)', () => {
  const podContainers: Container[] = [{ name: 'sidecar-1' }, { name: 'app-container' }, { name: 'sidecar-2' }];
  const sidecars: SidecarContainer[] = [
    { name: 'sidecar-1', podInjectPolicy: 'AfterAppContainer' },
    { name: 'sidecar-2', podInjectPolicy: 'AfterAppContainer' },
    { name: 'new-sidecar-1', podInjectPolicy: 'BeforeAppContainer' },
  ];
  const cases: Array<[string, Container[] | undefined, SidecarContainer[], string[]]> = [
    ['origins not sidecar, and inject new sidecar', podContainers.slice(1, 2), sidecars, ['new-sidecar-1', 'app-container', 'sidecar-1', 'sidecar-2']],
    ['origins not sidecar, and inject new sidecar, only before app container', podContainers.slice(1, 2), sidecars.slice(2), ['new-sidecar-1', 'app-container']],
    ['origins not sidecar, and inject new sidecar, only after app container', podContainers.slice(1, 2), sidecars.slice(0, 2), ['app-container', 'sidecar-1', 'sidecar-2']],
    ['origin have sidecars, sidecar no new containers', podContainers, sidecars.slice(0, 2), ['sidecar-1', 'app-container', 'sidecar-2']],
    ['origin have sidecars, sidecar have new containers', podContainers, sidecars, ['new-sidecar-1', 'sidecar-1', 'app-container', 'sidecar-2']],
    ['origin no sidecar, sidecar have new containers', undefined, sidecars, ['new-sidecar-1', 'sidecar-1', 'sidecar-2']],
    ['init: origins nil, inject a, c, b (sorted first)', undefined, [{ name: 'a-init' }, { name: 'b-init' }, { name: 'c-init' }], ['a-init', 'b-init', 'c-init']],
    ['init: after the pod\'s own', [{ name: 'app1-init' }, { name: 'app2-init' }], [{ name: 'a-init' }, { name: 'b-init' }, { name: 'c-init' }], ['app1-init', 'app2-init', 'a-init', 'b-init', 'c-init']],
    [
      'init: Before ones as a block in front',
      [{ name: 'app1-init' }, { name: 'app2-init' }],
      [
        { name: 'a-init', podInjectPolicy: 'AfterAppContainer' },
        { name: 'b-init', podInjectPolicy: 'BeforeAppContainer' },
        { name: 'c-init', podInjectPolicy: 'BeforeAppContainer' },
      ],
      ['b-init', 'c-init', 'app1-init', 'app2-init', 'a-init'],
    ],
  ];
  for (const [name, origins, injected, expected] of cases) {
    it(name, () => assert.deepEqual(names(mergeSidecarContainers(origins, injected)), expected));
  }

  it('drops the SidecarSet\'s own fields from the injected container', () => {
    const [c] = mergeSidecarContainers([], [{ name: 's', image: 'i', podInjectPolicy: 'AfterAppContainer', upgradeStrategy: {}, shareVolumePolicy: {}, transferEnv: [] }]);
    assert.deepEqual(c, { name: 's', image: 'i' });
  });
});

describe('patchPodMetadata (util_test.go TestPatchPodMetadata)', () => {
  it('add pod annotation', () => {
    const a: Record<string, string> = {};
    assert.equal(patchPodMetadata(a, [{ patchPolicy: 'Retain', annotations: { key1: 'value1' } }, { patchPolicy: 'Overwrite', annotations: { key2: 'value2' } }]), true);
    assert.deepEqual(a, { key1: 'value1', key2: 'value2' });
  });

  it('add pod annotation, exist: Retain keeps, Overwrite sets', () => {
    const a = { key1: 'old', key2: 'old' };
    patchPodMetadata(a, [{ patchPolicy: 'Retain', annotations: { key1: 'value1' } }, { patchPolicy: 'Overwrite', annotations: { key2: 'value2' } }]);
    assert.deepEqual(a, { key1: 'old', key2: 'value2' });
  });

  it('json merge pod annotation', () => {
    const a = { key2: '{"log-agent":1}' };
    patchPodMetadata(a, [{ patchPolicy: 'MergePatchJson', annotations: { key1: '{"log-agent":1}', key2: '{"envoy":2}', key3: '{"probe":5}' } }]);
    assert.deepEqual(a, { key1: '{"log-agent":1}', key2: '{"envoy":2,"log-agent":1}', key3: '{"probe":5}' });
  });

  it('json merge pod annotation, skip: nothing changes', () => {
    const a = { key1: '{"log-agent":1}' };
    assert.equal(patchPodMetadata(a, [{ patchPolicy: 'MergePatchJson', annotations: { key1: '{"log-agent":1}' } }]), false);
  });

  it('a pod value that is not a JSON object cannot be merged into', () => {
    assert.throws(() => patchPodMetadata({ key1: 'plain' }, [{ patchPolicy: 'MergePatchJson', annotations: { key1: '{"a":1}' } }]), /not a JSON object/);
  });
});

describe('transferredEnv (util_test.go TestGetSidecarTransferEnvs)', () => {
  const pod = (labels: Record<string, string>, annotations: Record<string, string> = {}): Pod => ({
    metadata: { name: 'test-pod-1', namespace: 'default', labels, annotations },
    spec: { containers: [{ name: 'main', image: 'main:v1', env: [{ name: 'test-env', value: 'test-value' }] }] },
  });
  const expected = [{ name: 'test-env', value: 'test-value' }];

  it('from a named container', () => {
    assert.deepEqual(transferredEnv({ name: 'cold-sidecar', transferEnv: [{ envName: 'test-env', sourceContainerName: 'main' }] }, pod({ app: 'nginx' })), expected);
  });

  it('from the container a label names', () => {
    const sidecar = { name: 'cold-sidecar', transferEnv: [{ envName: 'test-env', sourceContainerNameFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['app']" } } }] };
    assert.deepEqual(transferredEnv(sidecar, pod({ app: 'main' })), expected);
  });

  it('from the container an annotation names', () => {
    const sidecar = { name: 'cold-sidecar', transferEnv: [{ envName: 'test-env', sourceContainerNameFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['app']" } } }] };
    assert.deepEqual(transferredEnv(sidecar, pod({ app: 'x' }, { app: 'main' })), expected);
  });

  it('missing sources and variables are skipped; envNames are read in sorted order', () => {
    const p = pod({});
    p.spec!.containers[0]!.env!.push({ name: 'a-env', value: '1' });
    assert.deepEqual(transferredEnv({ name: 's', transferEnv: [{ sourceContainerName: 'nope', envName: 'test-env' }] }, p), []);
    assert.deepEqual(
      transferredEnv({ name: 's', transferEnv: [{ sourceContainerName: 'main', envNames: ['test-env', 'missing', 'a-env'] }] }, p).map((e) => e.name),
      ['a-env', 'test-env'],
    );
  });
});

describe('sidecarSetMatchesPod (util_test.go TestPodMatchedSidecarSet)', () => {
  const pod: Pod = { metadata: { name: 'test-pod', labels: { app: 'nginx' }, namespace: 'app1' } };
  const set = (spec: SidecarSet['spec']): SidecarSet => ({ metadata: { name: 'sidecarset-test' }, spec });
  const namespaces = (ns: string) => ({ app1: { app: 'app1' }, app2: { app: 'app2' } })[ns];
  const selector = { matchLabels: { app: 'nginx' } };

  it('test1: a selector alone', () => assert.equal(sidecarSetMatchesPod(set({ selector }), pod, namespaces), true));
  it('test2: the pod\'s namespace', () => assert.equal(sidecarSetMatchesPod(set({ selector, namespace: 'app1' }), pod, namespaces), true));
  it('test3: another namespace', () => assert.equal(sidecarSetMatchesPod(set({ selector, namespace: 'app2' }), pod, namespaces), false));
  it('test4: a namespace selector matching the pod\'s namespace', () => {
    assert.equal(sidecarSetMatchesPod(set({ selector, namespaceSelector: { matchLabels: { app: 'app1' } } }), pod, namespaces), true);
  });
  it('test5: a namespace selector that does not', () => {
    assert.equal(sidecarSetMatchesPod(set({ selector, namespaceSelector: { matchLabels: { app: 'app2' } } }), pod, namespaces), false);
  });
  it('an empty selector matches no pod', () => assert.equal(sidecarSetMatchesPod(set({ selector: {} }), pod, namespaces), false));
});

describe('the pod hash annotations', () => {
  it('are written as Go writes map[string]SidecarSetUpgradeSpec, and read back', () => {
    const text = writePodHashes({
      b: { updateTimestamp: '2024-05-01T12:00:00+02:00', hash: 'h<b>', sidecarSetName: 'b', sidecarList: ['x'] },
      a: { updateTimestamp: null, hash: 'h', sidecarSetName: 'a', sidecarList: null, controllerRevision: 'a-1' },
    });
    assert.equal(
      text,
      '{"a":{"updateTimestamp":null,"hash":"h","sidecarSetName":"a","sidecarList":null,"controllerRevision":"a-1"},' +
        '"b":{"updateTimestamp":"2024-05-01T10:00:00Z","hash":"h\\u003cb\\u003e","sidecarSetName":"b","sidecarList":["x"]}}',
    );
    assert.equal(readPodHashes({ k: text }, 'k').b!.hash, 'h<b>');
  });
});
