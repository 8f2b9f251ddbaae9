import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@operant/apimachinery';
import { builtinResources } from '../registry/builtin-resources.js';
import {
  builtinPrinters,
  defaultPrinter,
  formatLabelSelector,
  formatServicePorts,
  labelSelectorString,
  printerFor,
  type PrintedRow,
} from './builtin-printers.js';

const now = new Date('2024-05-01T12:00:00Z');
/** An RFC 3339 timestamp `seconds` before `now`. */
function ago(seconds: number): string {
  return new Date(now.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
}

function print(group: string, resource: string, obj: Record<string, unknown>): PrintedRow {
  return printerFor({ group, resource }).print(obj as unknown as KubeObject, now);
}

function pod(extra: { spec?: Record<string, unknown>; status?: Record<string, unknown>; metadata?: Record<string, unknown> }) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'default', creationTimestamp: ago(3 * 3600 + 4 * 60), ...extra.metadata },
    spec: { containers: [{ name: 'app', image: 'nginx' }], ...extra.spec },
    status: extra.status ?? {},
  };
}

const running = { running: { startedAt: ago(600) } };

/** READY, STATUS, RESTARTS of a pod. */
function podCells(p: Record<string, unknown>): [unknown, unknown, unknown] {
  const cells = print('', 'pods', p).cells;
  return [cells[1], cells[2], cells[3]];
}

describe('pod printer', () => {
  it('has kube’s columns, Name first with format name, wide columns at priority 1', () => {
    const cols = printerFor({ group: '', resource: 'pods' }).columns;
    assert.deepEqual(
      cols.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Ready', 'string', '', 0],
        ['Status', 'string', '', 0],
        ['Restarts', 'string', '', 0],
        ['Age', 'string', '', 0],
        ['IP', 'string', '', 1],
        ['Node', 'string', '', 1],
        ['Nominated Node', 'string', '', 1],
        ['Readiness Gates', 'string', '', 1],
      ],
    );
  });

  it('running: all containers ready', () => {
    const p = pod({
      spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'node-1' },
      status: {
        phase: 'Running',
        podIP: '10.0.0.5',
        podIPs: [{ ip: '10.0.0.5' }],
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 0, state: running },
          { name: 'b', ready: true, restartCount: 0, state: running },
        ],
      },
    });
    const row = print('', 'pods', p);
    assert.deepEqual(row.cells, ['web-0', '2/2', 'Running', '0', '3h4m', '10.0.0.5', 'node-1', '<none>', '<none>']);
    assert.equal(row.conditions, undefined);
  });

  it('running but one container not ready: 1/2', () => {
    const p = pod({
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 0, state: running },
          { name: 'b', ready: false, restartCount: 0, state: running },
        ],
      },
    });
    assert.deepEqual(podCells(p), ['1/2', 'Running', '0']);
  });

  it('pending without statuses, and pending with ContainerCreating', () => {
    assert.deepEqual(podCells(pod({ status: { phase: 'Pending' } })), ['0/1', 'Pending', '0']);
    const creating = pod({
      spec: { nodeName: 'node-1' },
      status: {
        phase: 'Pending',
        containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }],
      },
    });
    const row = print('', 'pods', creating);
    assert.deepEqual(row.cells.slice(1, 4), ['0/1', 'ContainerCreating', '0']);
    assert.deepEqual(row.cells.slice(5), ['<none>', 'node-1', '<none>', '<none>']);
  });

  it('CrashLoopBackOff with restarts and the time of the last one', () => {
    const p = pod({
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'app',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container' } },
            lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(5 * 60) } },
          },
        ],
      },
    });
    assert.deepEqual(podCells(p), ['0/1', 'CrashLoopBackOff', '3 (5m ago)']);
  });

  it('restarts without a last termination time print the bare count', () => {
    const p = pod({
      status: { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, restartCount: 2, state: running }] },
    });
    assert.deepEqual(podCells(p), ['1/1', 'Running', '2']);
  });

  it('terminating when deletionTimestamp is set, Unknown for NodeLost, phase kept when terminal', () => {
    const base = {
      phase: 'Running',
      containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }],
    };
    const deleting = { deletionTimestamp: ago(10), deletionGracePeriodSeconds: 30 };
    assert.deepEqual(podCells(pod({ metadata: deleting, status: base })), ['1/1', 'Terminating', '0']);
    assert.deepEqual(podCells(pod({ metadata: deleting, status: { ...base, reason: 'NodeLost' } }))[1], 'Unknown');
    const done = pod({
      metadata: deleting,
      status: {
        phase: 'Succeeded',
        containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
      },
    });
    assert.equal(podCells(done)[1], 'Completed');
  });

  it('completed and failed pods carry a Completed row condition', () => {
    const completed = print(
      '',
      'pods',
      pod({
        status: {
          phase: 'Succeeded',
          containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
        },
      }),
    );
    assert.deepEqual(completed.cells.slice(1, 4), ['0/1', 'Completed', '0']);
    assert.deepEqual(completed.conditions, [
      { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
    ]);
    const failed = print(
      '',
      'pods',
      pod({
        status: {
          phase: 'Failed',
          containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 137 } } }],
        },
      }),
    );
    assert.equal(failed.cells[2], 'ExitCode:137');
    assert.deepEqual(failed.conditions, [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]);
    const signalled = pod({
      status: { phase: 'Failed', containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 0, signal: 9 } } }] },
    });
    assert.equal(podCells(signalled)[1], 'Signal:9');
  });

  it('a completed container next to a running one reads Running (or NotReady)', () => {
    const statuses = [
      { name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
      { name: 'b', ready: true, restartCount: 0, state: running },
    ];
    const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
    const ready = pod({ spec, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: statuses } });
    assert.deepEqual(podCells(ready), ['1/2', 'Running', '0']);
    const notReady = pod({ spec, status: { phase: 'Running', containerStatuses: statuses } });
    assert.deepEqual(podCells(notReady), ['1/2', 'NotReady', '0']);
  });

  it('init containers: Init:0/1, Init:<reason>, Init:ExitCode, then the main containers', () => {
    const spec = { initContainers: [{ name: 'init' }], containers: [{ name: 'app' }] };
    const waiting = pod({
      spec,
      status: {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
        containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
      },
    });
    assert.deepEqual(podCells(waiting), ['0/1', 'Init:0/1', '0']);

    const runningInit = pod({
      spec: { initContainers: [{ name: 'one' }, { name: 'two' }], containers: [{ name: 'app' }] },
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'one', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          { name: 'two', ready: false, restartCount: 0, state: running },
        ],
      },
    });
    assert.deepEqual(podCells(runningInit), ['0/1', 'Init:1/2', '0']);

    const pullError = pod({
      spec,
      status: {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, state: { waiting: { reason: 'ErrImagePull' } } }],
      },
    });
    assert.equal(podCells(pullError)[1], 'Init:ErrImagePull');

    const crashing = pod({
      spec,
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          {
            name: 'init',
            ready: false,
            restartCount: 4,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(90) } },
          },
        ],
      },
    });
    assert.deepEqual(podCells(crashing), ['0/1', 'Init:CrashLoopBackOff', '4 (90s ago)']);

    const failedInit = pod({
      spec,
      status: { phase: 'Pending', initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, state: { terminated: { exitCode: 2 } } }] },
    });
    assert.equal(podCells(failedInit)[1], 'Init:ExitCode:2');

    const done = pod({
      spec,
      status: {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [{ name: 'init', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
        containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }],
      },
    });
    assert.deepEqual(podCells(done), ['1/1', 'Running', '0']);
  });

  it('sidecar (restartable) init containers count toward READY', () => {
    const p = pod({
      spec: { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'app' }] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [{ name: 'proxy', ready: true, started: true, restartCount: 1, state: running }],
        containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }],
      },
    });
    assert.deepEqual(podCells(p), ['2/2', 'Running', '1']);
  });

  it('SchedulingGated', () => {
    const p = pod({
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] },
    });
    assert.equal(podCells(p)[1], 'SchedulingGated');
  });

  it('wide cells: IP from podIPs, nominated node, readiness gates', () => {
    const p = pod({
      spec: { readinessGates: [{ conditionType: 'example.com/a' }, { conditionType: 'example.com/b' }] },
      status: {
        phase: 'Pending',
        podIPs: [{ ip: 'fd00::5' }],
        nominatedNodeName: 'node-2',
        conditions: [
          { type: 'example.com/a', status: 'True' },
          { type: 'example.com/b', status: 'False' },
        ],
      },
    });
    assert.deepEqual(print('', 'pods', p).cells.slice(5), ['fd00::5', '<none>', 'node-2', '1/2']);
  });
});

describe('deployment and replicaset printers', () => {
  const template = {
    metadata: { labels: { app: 'web' } },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'sidecar', image: 'busybox' }] },
  };

  it('prints a deployment row', () => {
    const row = print('apps', 'deployments', {
      metadata: { name: 'web', creationTimestamp: ago(2 * 86400 + 3 * 3600) },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] },
        template,
      },
      status: { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 },
    });
    assert.deepEqual(row.cells, ['web', '2/3', 3, 2, '2d3h', 'nginx,sidecar', 'nginx:1.27,busybox', 'app=web,tier in (back,front)']);
    assert.deepEqual(
      printerFor({ group: 'apps', resource: 'deployments' }).columns.map((c) => `${c.name}:${c.priority}`),
      ['Name:0', 'Ready:0', 'Up-to-date:0', 'Available:0', 'Age:0', 'Containers:1', 'Images:1', 'Selector:1'],
    );
  });

  it('a fresh deployment without status reads 0/1 (replicas defaulted)', () => {
    const row = print('apps', 'deployments', {
      metadata: { name: 'web', creationTimestamp: ago(5) },
      spec: { selector: { matchLabels: { app: 'web' } }, template },
    });
    assert.deepEqual(row.cells.slice(0, 5), ['web', '0/1', 0, 0, '5s']);
  });

  it('prints a replicaset row', () => {
    const row = print('apps', 'replicasets', {
      metadata: { name: 'web-5d9c', creationTimestamp: ago(45 * 86400) },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web', 'pod-template-hash': '5d9c' } }, template },
      status: { replicas: 2, readyReplicas: 1 },
    });
    assert.deepEqual(row.cells, ['web-5d9c', 2, 2, 1, '45d', 'nginx,sidecar', 'nginx:1.27,busybox', 'app=web,pod-template-hash=5d9c']);
  });

  it('controller revisions name their controller', () => {
    const row = print('apps', 'controllerrevisions', {
      metadata: {
        name: 'web-7b8c',
        creationTimestamp: ago(60),
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true }],
      },
      revision: 2,
    });
    assert.deepEqual(row.cells, ['web-7b8c', 'statefulset.apps/web', 2, '60s']);
    const orphan = print('apps', 'controllerrevisions', { metadata: { name: 'x', creationTimestamp: ago(60) }, revision: 1 });
    assert.equal(orphan.cells[1], '<none>');
  });
});

describe('label selectors', () => {
  it('formats like labels.Selector.String()', () => {
    assert.equal(labelSelectorString(undefined), '');
    assert.equal(labelSelectorString({}), '');
    assert.equal(
      labelSelectorString({
        matchLabels: { b: '2', a: '1' },
        matchExpressions: [
          { key: 'c', operator: 'NotIn', values: ['y', 'x'] },
          { key: 'd', operator: 'Exists' },
          { key: 'e', operator: 'DoesNotExist' },
        ],
      }),
      'a=1,b=2,c notin (x,y),d,!e',
    );
    assert.equal(labelSelectorString({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }), undefined);
    assert.equal(formatLabelSelector({}), '<none>');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), '<error>');
  });
});

describe('service printer', () => {
  it('formats ports as 80/TCP,443:30443/TCP', () => {
    assert.equal(
      formatServicePorts([
        { port: 80, protocol: 'TCP' },
        { port: 443, nodePort: 30443, protocol: 'TCP' },
      ]),
      '80/TCP,443:30443/TCP',
    );
    assert.equal(formatServicePorts([{ port: 53, protocol: 'UDP' }, { port: 53 }]), '53/UDP,53/TCP');
    assert.equal(formatServicePorts(undefined), '');
  });

  it('prints ClusterIP, NodePort, LoadBalancer, ExternalName and headless services', () => {
    const meta = { name: 'web', creationTimestamp: ago(30) };
    const clusterIP = print('', 'services', {
      metadata: meta,
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ port: 80, protocol: 'TCP' }], selector: { app: 'web' } },
    });
    assert.deepEqual(clusterIP.cells, ['web', 'ClusterIP', '10.96.0.10', '<none>', '80/TCP', '30s', 'app=web']);

    const nodePort = print('', 'services', {
      metadata: meta,
      spec: { type: 'NodePort', clusterIP: '10.96.0.11', ports: [{ port: 80, protocol: 'TCP' }, { port: 443, nodePort: 30443, protocol: 'TCP' }] },
    });
    assert.deepEqual(nodePort.cells, ['web', 'NodePort', '10.96.0.11', '<none>', '80/TCP,443:30443/TCP', '30s', '<none>']);

    const pending = print('', 'services', { metadata: meta, spec: { type: 'LoadBalancer', clusterIP: '10.96.0.12', ports: [{ port: 80, nodePort: 31000 }] } });
    assert.equal(pending.cells[3], '<pending>');
    const lb = print('', 'services', {
      metadata: meta,
      spec: { type: 'LoadBalancer', clusterIP: '10.96.0.12', externalIPs: ['1.1.1.1'] },
      status: { loadBalancer: { ingress: [{ ip: '203.0.113.9' }, { hostname: 'lb.example.com' }] } },
    });
    assert.deepEqual(lb.cells.slice(3, 5), ['203.0.113.9,lb.example.com,1.1.1.1', '<none>']);

    const external = print('', 'services', { metadata: meta, spec: { type: 'ExternalName', externalName: 'db.example.com' } });
    assert.deepEqual(external.cells.slice(1, 5), ['ExternalName', '<none>', 'db.example.com', '<none>']);

    const headless = print('', 'services', { metadata: meta, spec: { clusterIP: 'None', ports: [{ port: 5432 }] } });
    assert.deepEqual(headless.cells.slice(1, 5), ['ClusterIP', 'None', '<none>', '5432/TCP']);
  });

  it('prints endpoints, three at most', () => {
    const row = print('', 'endpoints', {
      metadata: { name: 'web', creationTimestamp: ago(30) },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: 'fd00::3' }], ports: [{ port: 80 }, { port: 443 }] }],
    });
    assert.deepEqual(row.cells, ['web', '10.0.0.1:80,10.0.0.2:80,[fd00::3]:80 + 3 more...', '30s']);
    assert.equal(print('', 'endpoints', { metadata: { name: 'x' } }).cells[1], '<none>');
  });
});

describe('config, identity and cluster printers', () => {
  it('configmaps, secrets, serviceaccounts, namespaces', () => {
    const meta = { name: 'x', creationTimestamp: ago(70) };
    assert.deepEqual(print('', 'configmaps', { metadata: meta, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }).cells, ['x', 3, '70s']);
    assert.deepEqual(print('', 'secrets', { metadata: meta, type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }).cells, [
      'x',
      'kubernetes.io/tls',
      2,
      '70s',
    ]);
    assert.deepEqual(print('', 'secrets', { metadata: meta }).cells, ['x', 'Opaque', 0, '70s']);
    assert.deepEqual(print('', 'serviceaccounts', { metadata: meta }).cells, ['x', 0, '70s']);
    assert.deepEqual(print('', 'namespaces', { metadata: meta, status: { phase: 'Active' } }).cells, ['x', 'Active', '70s']);
    assert.deepEqual(print('', 'namespaces', { metadata: meta, status: { phase: 'Terminating' } }).cells[1], 'Terminating');
  });

  it('nodes', () => {
    const row = print('', 'nodes', {
      metadata: { name: 'node-1', creationTimestamp: ago(86400 * 10), labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'worker' } },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }],
        addresses: [{ type: 'InternalIP', address: '192.168.1.10' }, { type: 'Hostname', address: 'node-1' }],
        nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.0' },
      },
    });
    assert.deepEqual(row.cells, [
      'node-1',
      'Ready,SchedulingDisabled',
      'control-plane,worker',
      '10d',
      'v1.32.0',
      '192.168.1.10',
      '<none>',
      'Debian',
      '6.1.0',
      'containerd://1.7.0',
    ]);
    const bare = print('', 'nodes', { metadata: { name: 'n' } });
    assert.deepEqual(bare.cells, ['n', 'Unknown', '<none>', '<unknown>', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
  });

  it('leases', () => {
    assert.deepEqual(print('coordination.k8s.io', 'leases', { metadata: { name: 'l', creationTimestamp: ago(5) }, spec: { holderIdentity: 'mgr-1' } }).cells, [
      'l',
      'mgr-1',
      '5s',
    ]);
  });

  it('role bindings, with subjects in the wide cells', () => {
    const row = print('rbac.authorization.k8s.io', 'rolebindings', {
      metadata: { name: 'rb', creationTimestamp: ago(5) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'User', name: 'bob' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
      ],
    });
    assert.deepEqual(row.cells, ['rb', 'ClusterRole/edit', '5s', 'alice, bob', 'devs', 'ci/builder']);
    assert.equal(printerFor({ group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' }).columns[3].description, 'Users in the clusterRoleBinding');
  });

  it('webhook configurations count their webhooks', () => {
    const obj = { metadata: { name: 'w', creationTimestamp: ago(5) }, webhooks: [{ name: 'a.example.com' }, { name: 'b.example.com' }] };
    assert.deepEqual(print('admissionregistration.k8s.io', 'mutatingwebhookconfigurations', obj).cells, ['w', 2, '5s']);
    assert.deepEqual(print('admissionregistration.k8s.io', 'validatingwebhookconfigurations', { metadata: obj.metadata }).cells, ['w', 0, '5s']);
  });
});

describe('event printers', () => {
  it('prints a core/v1 event', () => {
    const row = print('', 'events', {
      metadata: { name: 'web-0.17c', namespace: 'default', creationTimestamp: ago(300) },
      involvedObject: { kind: 'Pod', name: 'web-0', namespace: 'default', fieldPath: 'spec.containers{app}' },
      reason: 'Pulled',
      message: 'Successfully pulled image "nginx"\n',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: ago(300),
      lastTimestamp: ago(60),
      count: 4,
      type: 'Normal',
    });
    assert.deepEqual(row.cells, [
      '60s',
      'Normal',
      'Pulled',
      'pod/web-0',
      'spec.containers{app}',
      'kubelet, node-1',
      'Successfully pulled image "nginx"',
      '5m',
      4,
      'web-0.17c',
    ]);
    const cols = printerFor({ group: '', resource: 'events' }).columns;
    assert.deepEqual(
      cols.map((c) => `${c.name}:${c.priority}`),
      ['Last Seen:0', 'Type:0', 'Reason:0', 'Object:0', 'Subobject:1', 'Source:1', 'Message:0', 'First Seen:1', 'Count:1', 'Name:1'],
    );
    assert.equal(cols[9].format, 'name');
  });

  it('uses eventTime, series and reporting fields for new-style events', () => {
    const core = print('', 'events', {
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: { kind: 'Deployment', name: 'web' },
      reason: 'ScalingReplicaSet',
      message: 'Scaled up',
      eventTime: '2024-05-01T11:58:00.000000Z',
      reportingComponent: 'deployment-controller',
      type: 'Normal',
    });
    assert.deepEqual(core.cells, ['2m', 'Normal', 'ScalingReplicaSet', 'deployment/web', '', 'deployment-controller', 'Scaled up', '2m', 1, 'e']);

    const ev = print('events.k8s.io', 'events', {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e2', namespace: 'default' },
      eventTime: '2024-05-01T11:00:00.000000Z',
      series: { count: 7, lastObservedTime: '2024-05-01T11:59:30.000000Z' },
      reportingController: 'operant.io/sidecarset',
      reportingInstance: 'manager-1',
      action: 'Inject',
      reason: 'Injected',
      regarding: { kind: 'Pod', name: 'web-0', namespace: 'default' },
      note: 'injected sidecar',
      type: 'Normal',
    });
    assert.deepEqual(ev.cells, [
      '30s',
      'Normal',
      'Injected',
      'pod/web-0',
      '',
      'operant.io/sidecarset, manager-1',
      'injected sidecar',
      '60m',
      7,
      'e2',
    ]);
  });
});

describe('registry', () => {
  it('uses kube’s default convertor (Name, Created At) for roles, CRDs and unknown resources', () => {
    for (const r of [
      { group: 'rbac.authorization.k8s.io', resource: 'roles' },
      { group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
      { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
      { group: 'example.com', resource: 'widgets' },
    ]) {
      assert.equal(printerFor(r), defaultPrinter);
    }
    assert.deepEqual(
      defaultPrinter.columns.map((c) => [c.name, c.type, c.format]),
      [
        ['Name', 'string', 'name'],
        ['Created At', 'date', ''],
      ],
    );
    assert.deepEqual(
      defaultPrinter.print({ metadata: { name: 'admin', creationTimestamp: '2024-05-01T10:00:00Z' } }, now).cells,
      ['admin', '2024-05-01T10:00:00Z'],
    );
    assert.deepEqual(defaultPrinter.print({ metadata: { name: 'x' } }, now).cells, ['x', '0001-01-01T00:00:00Z']);
  });

  it('every printer puts Name (format name) first, except events which keep it last, and rows match columns', () => {
    for (const res of builtinResources) {
      const p = printerFor(res);
      const cells = p.print({ metadata: { name: 'n', creationTimestamp: ago(1) } }, now).cells;
      assert.equal(cells.length, p.columns.length, `${res.group}/${res.resource}`);
      const nameCol = p.columns.findIndex((c) => c.format === 'name');
      assert.equal(p.columns[nameCol].name, 'Name');
      if (res.resource !== 'events') assert.equal(nameCol, 0, `${res.group}/${res.resource}`);
    }
    assert.equal(builtinPrinters.size, 47);
  });
});
