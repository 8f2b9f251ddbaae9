/**
 * The SidecarSet defaulting webhook's logic: Kruise's
 * pkg/webhook/sidecarset/mutating/sidecarset_mutating_test.go, plus the
 * Kubernetes container and volume defaults it relies on
 * (apis/apps/defaults, k8s.io/kubernetes pkg/apis/core/v1/defaults.go).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Volume } from 'kubernetes-types/core/v1.js';
import type { SidecarSet } from '../src/api/v1alpha1/sidecarset-types.js';
import { SidecarSetHashAnnotation, SidecarSetHashWithoutImageAnnotation } from '../src/sidecarset/annotations.js';
import { defaultSidecarSet } from '../src/sidecarset/defaults/sidecarset-defaults.js';
import { imageTag, setContainerDefaults, setVolumeDefaults } from '../src/sidecarset/defaults/kubernetes-defaults.js';

describe('defaultSidecarSet (sidecarset_mutating_test.go TestMutatingSidecarSetFn)', () => {
  const sidecarSet = (): SidecarSet => ({
    metadata: { name: 'sidecarset-test', resourceVersion: '123' },
    spec: {
      containers: [{ name: 'dns-f', image: 'dns:1.0' }],
      patchPodMetadata: [{ annotations: { key1: 'value1' } }],
      injectionStrategy: { revision: { customVersion: '1' } },
    },
  });

  it('fills the update strategy, the container policies and the Kubernetes container defaults', () => {
    const obj = sidecarSet();
    defaultSidecarSet(obj);
    const spec = obj.spec!;
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', maxUnavailable: 1, partition: 0 });
    assert.deepEqual(spec.containers, [
      {
        name: 'dns-f',
        image: 'dns:1.0',
        podInjectPolicy: 'BeforeAppContainer',
        upgradeStrategy: { upgradeType: 'ColdUpgrade' },
        shareVolumePolicy: { type: 'disabled' },
        imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      },
    ]);
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.patchPodMetadata![0]!.patchPolicy, 'Retain');
    assert.equal(spec.injectionStrategy!.revision!.policy, 'Always');
  });

  it('writes both hashes, computed over the defaulted containers: Kruise\'s values', () => {
    const obj = sidecarSet();
    defaultSidecarSet(obj);
    assert.equal(obj.metadata!.annotations![SidecarSetHashAnnotation], '6wbd76bd7984x24fb4f44fv9222cw9v9bcf85x766744wddd4zwx927zzz2zb684');
    assert.equal(obj.metadata!.annotations![SidecarSetHashWithoutImageAnnotation], '82684vwf9d4cb4wz4vffx4ddfbb47ww4z4wwxdbwb8w2zbb7zvf4524cdd49bv94');
  });

  it('is idempotent: defaulting again changes nothing (so an update that changes no container keeps the hash)', () => {
    const once = sidecarSet();
    defaultSidecarSet(once);
    const twice = structuredClone(once);
    defaultSidecarSet(twice);
    assert.deepEqual(twice, once);
  });

  it('defaults init containers to AfterAppContainer and keeps values already set', () => {
    const obj: SidecarSet = {
      metadata: { name: 's' },
      spec: {
        initContainers: [{ name: 'init', image: 'busybox' }],
        containers: [{ name: 'c', image: 'nginx:1.25', podInjectPolicy: 'AfterAppContainer', shareVolumePolicy: { type: 'enabled' } }],
        updateStrategy: { type: 'NotUpdate', partition: '50%' },
        revisionHistoryLimit: 3,
      },
    };
    defaultSidecarSet(obj);
    assert.equal(obj.spec!.initContainers![0]!.podInjectPolicy, 'AfterAppContainer');
    assert.equal(obj.spec!.initContainers![0]!.imagePullPolicy, 'Always'); // untagged: latest
    assert.equal(obj.spec!.containers![0]!.podInjectPolicy, 'AfterAppContainer');
    assert.equal(obj.spec!.containers![0]!.shareVolumePolicy!.type, 'enabled');
    assert.deepEqual(obj.spec!.updateStrategy, { type: 'NotUpdate', partition: '50%', maxUnavailable: 1 });
    assert.equal(obj.spec!.revisionHistoryLimit, 3);
  });
});

describe('Kubernetes container defaults (SetDefaults_Container and friends)', () => {
  it('pulls :latest and untagged images Always, tagged and digest-only ones IfNotPresent', () => {
    assert.equal(imageTag('nginx'), 'latest');
    assert.equal(imageTag('nginx:latest'), 'latest');
    assert.equal(imageTag('nginx:1.25'), '1.25');
    assert.equal(imageTag('registry.example.com:5000/team/app'), 'latest');
    assert.equal(imageTag('registry.example.com:5000/team/app:v2'), 'v2');
    assert.equal(imageTag(`nginx@sha256:${'a'.repeat(64)}`), '');
    assert.equal(imageTag(`nginx:1.25@sha256:${'a'.repeat(64)}`), '1.25');
    assert.equal(imageTag('Not/Valid'), ''); // does not parse: IfNotPresent
  });

  it('defaults ports, field refs, probes, hooks, and rounds resources up to milli units', () => {
    const c: Container = {
      name: 'c',
      image: 'app:1',
      ports: [{ containerPort: 80 }],
      env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      resources: { limits: { cpu: '0.5', memory: '1024Mi' }, requests: { cpu: '1n' } },
      livenessProbe: { httpGet: { port: 80 } },
      startupProbe: { exec: { command: ['true'] } },
      lifecycle: { preStop: { httpGet: { port: 80 } } },
    };
    setContainerDefaults(c);
    assert.equal(c.ports![0]!.protocol, 'TCP');
    assert.equal(c.env![0]!.valueFrom!.fieldRef!.apiVersion, 'v1');
    assert.deepEqual(c.resources, { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '1m' } });
    assert.deepEqual(c.livenessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(c.startupProbe, { exec: { command: ['true'] } }); // Kruise leaves the startup probe alone
    assert.deepEqual(c.lifecycle!.preStop!.httpGet, { port: 80, path: '/', scheme: 'HTTP' });
  });

  it('gives a volume without a source an emptyDir, and file modes and token lifetimes to the others', () => {
    const volumes: Volume[] = [
      { name: 'scratch' },
      { name: 'host', hostPath: { path: '/var/log' } },
      { name: 'cm', configMap: { name: 'settings' } },
      { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'istio-ca' } }] } },
    ];
    for (const v of volumes) setVolumeDefaults(v);
    assert.deepEqual(volumes, [
      { name: 'scratch', emptyDir: {} },
      { name: 'host', hostPath: { path: '/var/log', type: '' } },
      { name: 'cm', configMap: { name: 'settings', defaultMode: 420 } },
      { name: 'token', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { path: 'token', audience: 'istio-ca', expirationSeconds: 3600 } }] } },
    ]);
  });
});
