/**
 * `operant server --nodes 1 --time-scale 100` judged by the real kubectl: a
 * ResourceQuota made with `kubectl create quota` refuses what would pass it
 * in kube's words and `kubectl describe quota` shows its usage; a Deployment
 * autoscaled with `kubectl autoscale` grows once its CPU usage, set by
 * annotation, passes the target, and `kubectl get hpa` shows it. Waits are
 * `kubectl wait`, never sleeps.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { hasKubectl, kubectlOk, startServer, type ServerProcess } from './harness.js';
import { kit, kubectlFails, tableRows } from './kubectl-support.js';

let server: ServerProcess;

before(async () => {
  if (!hasKubectl) return;
  server = await startServer({ extraArgs: ['--nodes', '1', '--time-scale', '100'] });
});
after(async () => {
  await server?.stop();
});

const k = (args: string[]): Promise<string> => kubectlOk(server, args);

describe('operant server --nodes 1: quotas and autoscaling', () => {
  kit('kubectl create quota: a Deployment stops at it, kubectl run is refused in kube\'s words, describe shows the usage', async () => {
    await k(['create', 'namespace', 'team']);
    await k(['create', 'quota', 'compute', '-n', 'team', '--hard=pods=2,requests.cpu=1']);
    await k(['wait', '-n', 'team', 'quota/compute', '--for=jsonpath={.status.used.pods}=0', '--timeout=30s']);
    const bare = await kubectlFails(server, ['run', 'bare', '-n', 'team', '--image=nginx']);
    assert.match(bare.stderr, /Error from server \(Forbidden\): pods "bare" is forbidden: failed quota: compute: must specify requests\.cpu/);
    await k(['create', 'deployment', 'web', '-n', 'team', '--image=nginx', '--replicas=3']);
    await k(['set', 'resources', 'deployment', 'web', '-n', 'team', '--requests=cpu=200m']);
    await k(['wait', '-n', 'team', 'quota/compute', '--for=jsonpath={.status.used.pods}=2', '--timeout=30s']);
    const described = await k(['describe', 'quota', 'compute', '-n', 'team']);
    assert.match(described, /pods\s+2\s+2/);
    assert.match(described, /requests\.cpu\s+400m\s+1/);
    const full = await kubectlFails(server, ['run', 'one-more', '-n', 'team', '--image=nginx', '--overrides', '{"spec":{"containers":[{"name":"one-more","image":"nginx","resources":{"requests":{"cpu":"100m"}}}]}}']);
    assert.match(full.stderr, /pods "one-more" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2/);
  });

  kit('kubectl autoscale: CPU usage set on the HPA above the target scales the Deployment, up to --max', async () => {
    await k(['create', 'deployment', 'api', '--image=nginx', '--replicas=1']);
    await k(['set', 'resources', 'deployment', 'api', '--requests=cpu=100m']);
    await k(['rollout', 'status', 'deployment/api', '--timeout=30s']);
    await k(['autoscale', 'deployment', 'api', '--cpu-percent=50', '--min=1', '--max=3']);
    await k(['annotate', 'hpa', 'api', 'sim.operant.dev/cpu-usage=90m']);
    await k(['wait', 'hpa/api', '--for=jsonpath={.status.desiredReplicas}=3', '--timeout=30s']);
    await k(['wait', 'deployment/api', '--for=jsonpath={.status.readyReplicas}=3', '--timeout=30s']);
    const row = tableRows(await k(['get', 'hpa', 'api']))[1]!;
    assert.deepEqual(row.slice(0, 6), ['api', 'Deployment/api', 'cpu: 90%/50%', '1', '3', '3']);
    const described = await k(['describe', 'hpa', 'api']);
    assert.match(described, /ScalingLimited\s+True\s+TooManyReplicas\s+the desired replica count is more than the maximum replica count/);
    assert.match(described, /SuccessfulRescale .*New size: 2; reason: cpu resource utilization \(percentage of request\) above target/);
  });
});
