/**
 * The real kubectl against `operant server`: autoscaling HorizontalPodAutoscalers,
 * served as v2 (preferred, stored) and v1 (converted as kube converts it, the
 * v2-only parts kept in kube's annotations), with kube's defaults, validation
 * and kubectl's columns.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const json = async (args: string[]): Promise<Json> => JSON.parse(await kubectlOk(server(), [...args, '-o', 'json'])) as Json;
const v1Path = (name: string): string => `/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/${name}`;
const raw = async (path: string): Promise<Json> => JSON.parse(await kubectlOk(server(), ['get', '--raw', path])) as Json;

describe('kubectl and HorizontalPodAutoscalers', () => {
  kit('api-resources lists hpa at autoscaling/v2; kubectl autoscale makes one that prints kubectl\'s columns in both versions', async () => {
    const rows = tableRows(await kubectlOk(server(), ['api-resources', '--api-group=autoscaling']));
    assert.deepEqual(rows[1], ['horizontalpodautoscalers', 'hpa', 'autoscaling/v2', 'true', 'HorizontalPodAutoscaler']);
    await kubectlOk(server(), ['create', 'deployment', 'web', '--image=nginx']);
    await kubectlOk(server(), ['autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu-percent=60']);
    const printed = tableRows(await kubectlOk(server(), ['get', 'hpa']));
    assert.deepEqual(printed[0], ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    assert.deepEqual(printed[1]!.slice(0, 6), ['web', 'Deployment/web', 'cpu: <unknown>/60%', '2', '5', '0']);
    const v2 = await json(['get', 'horizontalpodautoscalers.v2.autoscaling', 'web']);
    assert.deepEqual(v2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
    const v1 = await raw(v1Path('web'));
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 60);
    assert.deepEqual(tableRows(await kubectlOk(server(), ['get', 'horizontalpodautoscalers.v1.autoscaling', 'web']))[1]!.slice(0, 6), ['web', 'Deployment/web', 'cpu: <unknown>/60%', '2', '5', '0']);
  });

  kit('a v2 HPA gets kube\'s defaults; its v2-only parts survive a write through v1', async () => {
    await applyYaml(
      server(),
      `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: AverageValue, averageValue: 500Mi}}
  behavior: {scaleDown: {stabilizationWindowSeconds: 60}}
`,
    );
    const created = await json(['get', 'hpa', 'api']);
    assert.equal(created.spec.minReplicas, 1);
    assert.deepEqual(created.spec.behavior.scaleUp, {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    });
    assert.deepEqual(created.spec.behavior.scaleDown, { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

    const v1 = await raw(v1Path('api'));
    assert.equal(v1.spec.targetCPUUtilizationPercentage, undefined);
    assert.deepEqual(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics']), [
      { type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } },
    ]);
    // Written back through v1 as a v1 client does: the whole v1 object, annotations included.
    v1.spec.maxReplicas = 12;
    await kubectlOk(server(), ['replace', '--raw', v1Path('api'), '-f', '-'], { input: JSON.stringify(v1) });
    const after = await json(['get', 'horizontalpodautoscalers.v2.autoscaling', 'api']);
    assert.equal(after.spec.maxReplicas, 12);
    assert.deepEqual(after.spec.metrics, created.spec.metrics);
    assert.deepEqual(after.spec.behavior, created.spec.behavior);
    // The conversion's annotations are not stored.
    assert.deepEqual(Object.keys(after.metadata.annotations ?? {}).filter((k) => k.startsWith('autoscaling.alpha.kubernetes.io/')), []);
  });

  kit('kube\'s checks, in kube\'s words', async () => {
    const bad = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: bad}\nspec:\n  scaleTargetRef: {kind: Deployment}\n  minReplicas: 3\n  maxReplicas: 2\n  metrics: [{type: Pods}]\n',
    });
    assert.match(bad.stderr, /spec.scaleTargetRef.name: Required value/);
    assert.match(bad.stderr, /spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`/);
    assert.match(bad.stderr, /spec.metrics\[0\].pods: Required value: must populate information for the given metric source/);
  });
});
