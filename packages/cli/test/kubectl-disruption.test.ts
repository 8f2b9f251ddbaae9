/**
 * PodDisruptionBudgets judged by the real kubectl against `operant server
 * --nodes 3`: `kubectl create pdb` and kubectl's columns, validation with
 * kube's wording, the disruption controller's status, and evictions (the
 * raw `pods/<name>/eviction` subresource and `kubectl drain`) refused with
 * kube's 429 while the budget allows no disruption, then allowed once it does.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { hasKubectl, kubectl, kubectlOk, startServer, type ServerProcess } from './harness.js';
import { RunningKubectl, kit, kubectlFails, tableRows } from './kubectl-support.js';

let server: ServerProcess;

before(async () => {
  if (!hasKubectl) return;
  server = await startServer({ extraArgs: ['--nodes', '3'] });
});
after(async () => {
  await server?.stop();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const json = async (args: string[]): Promise<Json> => JSON.parse(await kubectlOk(server, [...args, '-o', 'json'])) as Json;

/** Waits (on kubectl's own watch) until the budget's status says `expr`. */
async function waitForBudget(name: string, expr: string): Promise<void> {
  await kubectlOk(server, ['wait', `pdb/${name}`, `--for=jsonpath=${expr}`, '--timeout=30s']);
}

const evictionBody = (pod: string): string => JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' } });

/** `kubectl create --raw` of an Eviction for `pod`: what a client of the eviction API sends. */
function evict(pod: string): ReturnType<typeof kubectl> {
  return kubectl(server, ['create', '--raw', `/api/v1/namespaces/default/pods/${pod}/eviction`, '-f', '-'], { input: evictionBody(pod) });
}

describe('operant server --nodes 3: PodDisruptionBudgets and evictions', () => {
  kit('api-resources lists pdb, and create pdb shows kubectl\'s columns and kube\'s validation', async () => {
    const policy = tableRows(await kubectlOk(server, ['api-resources', '--api-group=policy']));
    assert.deepEqual(policy[1], ['poddisruptionbudgets', 'pdb', 'policy/v1', 'true', 'PodDisruptionBudget']);

    await kubectlOk(server, ['create', 'pdb', 'lonely', '--selector=app=lonely', '--max-unavailable=30%']);
    const rows = tableRows(await kubectlOk(server, ['get', 'pdb', 'lonely']));
    assert.deepEqual(rows[0], ['NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']);
    assert.deepEqual(rows[1]!.slice(0, 4), ['lonely', 'N/A', '30%', '0']);
    // No pods: the controller says so, with kube's event, and allows nothing.
    await waitForBudget('lonely', '{.status.observedGeneration}=1');
    const status = (await json(['get', 'pdb', 'lonely'])).status;
    assert.equal(status.expectedPods, 0);
    assert.equal(status.disruptionsAllowed, 0);
    assert.equal(status.conditions[0].reason, 'InsufficientPods');
    const events = await kubectlOk(server, ['get', 'events', '--field-selector', 'involvedObject.name=lonely']);
    assert.match(events, /NoPods\s+poddisruptionbudget\/lonely\s+No matching pods found/);

    const both = await kubectlFails(server, ['apply', '-f', '-'], {
      input: 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: bad}\nspec: {minAvailable: 1, maxUnavailable: "200%", selector: {matchLabels: {app: x}}}\n',
    });
    assert.match(both.stderr, /spec: Invalid value: .*: minAvailable and maxUnavailable cannot be both set/);
    assert.match(both.stderr, /spec.maxUnavailable: Invalid value: "200%": must not be greater than 100%/);
    const policyValue = await kubectlFails(server, ['apply', '-f', '-'], {
      input: 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: bad}\nspec: {minAvailable: 1, unhealthyPodEvictionPolicy: Sometimes}\n',
    });
    assert.match(policyValue.stderr, /spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"/);
  });

  kit('an eviction the budget does not allow gets kube\'s 429; once the budget allows one, the pod goes and is recorded as disrupted', async () => {
    await kubectlOk(server, ['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    await kubectlOk(server, ['rollout', 'status', 'deployment/web', '--timeout=30s']);
    await kubectlOk(server, ['create', 'pdb', 'web', '--selector=app=web', '--min-available=2']);
    await waitForBudget('web', '{.status.currentHealthy}=2');
    const status = (await json(['get', 'pdb', 'web'])).status;
    assert.deepEqual([status.expectedPods, status.desiredHealthy, status.currentHealthy, status.disruptionsAllowed], [2, 2, 2, 0]);
    assert.deepEqual(tableRows(await kubectlOk(server, ['get', 'pdb', 'web']))[1]!.slice(0, 4), ['web', '2', 'N/A', '0']);

    const pods = (await json(['get', 'pods', '-l', 'app=web'])).items.map((p: Json) => p.metadata.name as string);
    const refused = await evict(pods[0]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Cannot evict pod as it would violate the pod's disruption budget/);
    // The Status itself, as kube sends it: 429 TooManyRequests with the DisruptionBudget cause.
    const raw = await kubectl(server, ['create', '--raw', `/api/v1/namespaces/default/pods/${pods[0]}/eviction`, '-f', '-', '-v=8'], { input: evictionBody(pods[0]) });
    assert.match(raw.stderr, /Response Status: 429 Too Many Requests/);
    const body = /"Response Body" body="(.*)"\n/.exec(raw.stderr)?.[1];
    assert.ok(body, raw.stderr);
    // Byte for byte, in metav1.Status's field order.
    assert.equal(
      JSON.parse(`"${body}"`),
      JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
        reason: 'TooManyRequests',
        details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 2 healthy pods and has 2 currently' }] },
        code: 429,
      }),
    );
    assert.equal((await json(['get', 'pods', '-l', 'app=web'])).items.length, 2);

    // A pending pod is not covered yet: it is evicted whatever the budget says.
    await kubectlOk(server, ['run', 'waiting', '--image=nginx', '--labels=app=web', '--overrides={"spec":{"nodeSelector":{"no":"such-node"}}}']);
    await kubectlOk(server, ['wait', 'pod/waiting', '--for=condition=PodScheduled=false', '--timeout=30s']);
    const pending = await evict('waiting');
    assert.equal(pending.code, 0, pending.stderr);
    await kubectlOk(server, ['wait', 'pod/waiting', '--for=delete', '--timeout=30s']);

    await kubectlOk(server, ['patch', 'pdb', 'web', '--type=merge', '-p', '{"spec":{"minAvailable":1}}']);
    await waitForBudget('web', '{.status.disruptionsAllowed}=1');
    // The eviction records the pod in status.disruptedPods (seen on a watch: the controller drops it once the pod is gone).
    const watch = new RunningKubectl(server, ['get', 'pdb', 'web', '-w', '-o', 'jsonpath={.status.disruptionsAllowed} {.status.disruptedPods}{"\\n"}']);
    try {
      await watch.waitForLine(/^1 $/);
      const allowed = await evict(pods[0]);
      assert.equal(allowed.code, 0, allowed.stderr);
      await watch.waitForLine(new RegExp(`^0 \\{"${pods[0]}":"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"\\}$`));
    } finally {
      await watch.kill();
    }
    await kubectlOk(server, ['wait', `pod/${pods[0]}`, '--for=delete', '--timeout=30s']);
    await kubectlOk(server, ['rollout', 'status', 'deployment/web', '--timeout=30s']);
    await waitForBudget('web', '{.status.disruptionsAllowed}=1');
    assert.equal((await json(['get', 'pdb', 'web'])).status.disruptedPods, undefined);
  });

  kit('kubectl drain is held back by the budget with kube\'s message, and drains once the budget allows it', async () => {
    await kubectlOk(server, ['create', 'deployment', 'api', '--image=nginx', '--replicas=1']);
    await kubectlOk(server, ['rollout', 'status', 'deployment/api', '--timeout=30s']);
    await kubectlOk(server, ['create', 'pdb', 'api', '--selector=app=api', '--min-available=1']);
    await waitForBudget('api', '{.status.currentHealthy}=1');
    const pod = (await json(['get', 'pods', '-l', 'app=api'])).items[0];
    const node = pod.spec.nodeName as string;

    const held = await kubectlFails(server, ['drain', node, '--ignore-daemonsets', '--pod-selector=app=api', '--timeout=3s']);
    assert.match(
      held.stderr,
      new RegExp(`error when evicting pods/"${pod.metadata.name}" -n "default" \\(will retry after 5s\\): Cannot evict pod as it would violate the pod's disruption budget\\.`),
    );
    assert.equal((await json(['get', 'pod', pod.metadata.name])).metadata.deletionTimestamp, undefined);

    await kubectlOk(server, ['patch', 'pdb', 'api', '--type=merge', '-p', '{"spec":{"minAvailable":0}}']);
    await waitForBudget('api', '{.status.disruptionsAllowed}=1');
    const drained = await kubectlOk(server, ['drain', node, '--ignore-daemonsets', '--pod-selector=app=api', '--timeout=30s']);
    assert.match(drained, new RegExp(`pod/${pod.metadata.name} evicted`));
    assert.match(drained, new RegExp(`node/${node} drained`));
    await kubectlOk(server, ['uncordon', node]);
  });
});
