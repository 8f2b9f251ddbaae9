/**
 * The real kubectl against `operant server` (no nodes): apps/v1 StatefulSets
 * and DaemonSets and batch/v1 Jobs and CronJobs are served with kube's
 * defaults, validation messages, printer columns, short names, field
 * selectors, status and scale subresources, and `kubectl explain` schemas.
 * (Their controllers are proven in kubectl-cluster-workloads.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { kubectlOk } from './harness.js';
import { applyYaml, header, kit, kubectlFails, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const json = async (args: string[]): Promise<Json> => JSON.parse(await kubectlOk(server(), [...args, '-o', 'json'])) as Json;

const statefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx:1.27}]}
`;

const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {disk: ssd}
      containers: [{name: agent, image: busybox:1.36}]
`;

describe('kubectl and the workload APIs', () => {
  kit('api-resources lists them with kube\'s short names, and get sts,ds,jobs,cronjobs prints kubectl\'s columns', async () => {
    const resources = tableRows(await kubectlOk(server(), ['api-resources', '--api-group=apps']))
      .concat(tableRows(await kubectlOk(server(), ['api-resources', '--api-group=batch'])))
      .filter((r) => r[0] !== 'NAME')
      .map((r) => `${r[0]} ${r.length === 5 ? r[1] : '-'}`);
    for (const r of ['daemonsets ds', 'statefulsets sts', 'cronjobs cj', 'jobs -']) assert.ok(resources.includes(r), `${r} in ${resources.join('; ')}`);

    await applyYaml(server(), `${statefulSet}---\n${daemonSet}`);
    await kubectlOk(server(), ['create', 'job', 'pi', '--image=perl:5.34', '--', 'perl', '-e', 'print 1']);
    await kubectlOk(server(), ['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *', '--', 'date']);

    const out = await kubectlOk(server(), ['get', 'sts,ds,jobs,cronjobs']);
    const blocks = out.trim().split(/\n\s*\n/).map(tableRows);
    assert.deepEqual(blocks.map((b) => b[0]), [
      ['NAME', 'READY', 'AGE'],
      ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE'],
      ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE'],
      ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE'],
    ]);
    assert.deepEqual(blocks[0][1].slice(0, 2), ['statefulset.apps/web', '0/2']);
    assert.deepEqual(blocks[1][1].slice(0, 7), ['daemonset.apps/agent', '0', '0', '0', '0', '0', 'disk=ssd']);
    // No start time yet, so the duration cell is empty and the columns close up.
    assert.deepEqual(blocks[2][1].slice(0, 3), ['job.batch/pi', 'Running', '0/1']);
    assert.deepEqual(blocks[3][1].slice(0, 6), ['cronjob.batch/tick', '*/5 * * * *', '<none>', 'False', '0', '<none>']);

    const wide = header(await kubectlOk(server(), ['get', 'ds', '-o', 'wide']));
    assert.deepEqual(wide.slice(-3), ['CONTAINERS', 'IMAGES', 'SELECTOR']);
  });

  kit('defaults are kube\'s SetDefaults_StatefulSet, _DaemonSet, _Job and _CronJob', async () => {
    const sts = await json(['get', 'sts', 'web']);
    assert.equal(sts.spec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(sts.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.deepEqual(sts.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(sts.spec.revisionHistoryLimit, 10);
    assert.equal(sts.spec.template.spec.restartPolicy, 'Always');
    assert.equal(sts.metadata.generation, 1);

    const ds = await json(['get', 'ds', 'agent']);
    assert.deepEqual(ds.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(ds.spec.revisionHistoryLimit, 10);
    assert.equal(ds.metadata.annotations['deprecated.daemonset.template.generation'], '1');

    const job = await json(['get', 'job', 'pi']);
    const uid = job.metadata.uid as string;
    assert.deepEqual(
      { completions: job.spec.completions, parallelism: job.spec.parallelism, backoffLimit: job.spec.backoffLimit, mode: job.spec.completionMode, suspend: job.spec.suspend, replacement: job.spec.podReplacementPolicy },
      { completions: 1, parallelism: 1, backoffLimit: 6, mode: 'NonIndexed', suspend: false, replacement: 'TerminatingOrFailed' },
    );
    assert.deepEqual(job.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    assert.deepEqual(job.spec.template.metadata.labels, {
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': uid,
      'job-name': 'pi',
    });

    const cj = await json(['get', 'cj', 'tick']);
    assert.deepEqual(
      [cj.spec.concurrencyPolicy, cj.spec.suspend, cj.spec.successfulJobsHistoryLimit, cj.spec.failedJobsHistoryLimit, cj.spec.jobTemplate.spec.backoffLimit],
      ['Allow', false, 3, 1, 6],
    );
  });

  kit('validation answers with kube\'s messages', async () => {
    const noRestart = (await kubectlFails(server(), ['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'always' },
        spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      }),
    })).stderr;
    // kube 1.32 answers a template that kept the default Always with Required, not Unsupported.
    assert.match(noRestart, /The Job "always" is invalid: spec\.template\.spec\.restartPolicy: Required value: valid values: "OnFailure", "Never"/);

    const perIndex = (name: string, spec: Json): string =>
      JSON.stringify({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name },
        spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
      });
    const nonIndexed = (await kubectlFails(server(), ['create', '-f', '-'], { input: perIndex('per-index', { backoffLimitPerIndex: 1, maxFailedIndexes: 1 }) })).stderr;
    assert.ok(nonIndexed.includes('spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode'), nonIndexed);
    assert.ok(nonIndexed.includes('spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode'), nonIndexed);
    const tooMany = (await kubectlFails(server(), ['create', '-f', '-'], {
      input: perIndex('too-many', { completionMode: 'Indexed', completions: 2, maxFailedIndexes: 3 }),
    })).stderr;
    assert.ok(tooMany.includes('spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified'), tooMany);
    assert.ok(tooMany.includes('spec.maxFailedIndexes: Invalid value: 3: must be less than or equal to completions'), tooMany);

    const badSchedule = (await kubectlFails(server(), ['create', 'cronjob', 'bad', '--image=busybox', '--schedule=* * *'])).stderr;
    assert.match(badSchedule, /spec\.schedule: Invalid value: "\* \* \*": expected exactly 5 fields, found 3: \[\* \* \*\]/);
    const tz = (await kubectlFails(server(), ['create', 'cronjob', 'tz', '--image=busybox', '--schedule=TZ=UTC 0 * * * *'])).stderr;
    assert.match(tz, /cannot use TZ or CRON_TZ in schedule, use timeZone field instead/);

    const stsChange = (await kubectlFails(server(), ['patch', 'sts', 'web', '--type=merge', '-p', '{"spec":{"serviceName":"other"}}'])).stderr;
    assert.match(stsChange, /spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden/);
    // revisionHistoryLimit may change.
    await kubectlOk(server(), ['patch', 'sts', 'web', '--type=merge', '-p', '{"spec":{"revisionHistoryLimit":3}}']);

    const dsSelector = (await kubectlFails(server(), ['patch', 'ds', 'agent', '--type=merge', '-p', '{"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}}}}}'])).stderr;
    assert.match(dsSelector, /spec\.selector: Invalid value: .*field is immutable/);

    const dsAlways = (await kubectlFails(server(), ['create', '-f', '-'], {
      input: daemonSet.replace('name: agent}', 'name: agent2}').replace('containers:', 'restartPolicy: Never\n      containers:'),
    })).stderr;
    assert.match(dsAlways, /spec\.template\.spec\.restartPolicy: Unsupported value: "Never": supported values: "Always"/);
  });

  kit("a template's affinity, tolerations and topology spread are refused in kube's words (kubectl apply)", async () => {
    const stderr = (await kubectlFails(server(), ['apply', '-f', '-'], {
      input: statefulSet
        .replace('name: web}', 'name: sched}')
        .replace(
          'spec: {containers: [{name: nginx, image: nginx:1.27}]}',
          'spec:\n      containers: [{name: nginx, image: nginx:1.27}]\n' +
            '      affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 200, podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: ""}}]}}\n' +
            '      tolerations: [{operator: Equal, value: x}]\n' +
            '      topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]',
        ),
    })).stderr;
    const term = 'spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]';
    for (const line of [
      'The StatefulSet "sched" is invalid: ',
      `* ${term}.weight: Invalid value: 200: must be in the range 1-100`,
      `* ${term}.podAffinityTerm.topologyKey: Required value: can not be empty`,
      '* spec.template.spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
      '* spec.template.spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    ]) {
      assert.ok(stderr.includes(line), `missing ${JSON.stringify(line)} in ${stderr}`);
    }
  });

  kit('podFailurePolicy: kube\'s validation messages, restartPolicy Never only, Failed replacement only, immutable', async () => {
    const pfpJob = (name: string, spec: Json, podSpec: Json = {}): string =>
      JSON.stringify({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name },
        spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }], ...podSpec } } },
      });
    const expectAll = (stderr: string, messages: string[]): void => {
      for (const m of messages) assert.ok(stderr.includes(m), `missing ${JSON.stringify(m)} in ${stderr}`);
    };

    const onFailure = (await kubectlFails(server(), ['create', '-f', '-'], {
      input: pfpJob('on-failure', { podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] } }, { restartPolicy: 'OnFailure' }),
    })).stderr;
    assert.match(onFailure, /The Job "on-failure" is invalid: spec\.template\.spec\.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified/);

    const rules = (await kubectlFails(server(), ['create', '-f', '-'], {
      input: pfpJob('bad-rules', {
        podReplacementPolicy: 'TerminatingOrFailed',
        podFailurePolicy: {
          rules: [
            { action: 'FailIndex', onExitCodes: { operator: 'In', values: [1] } },
            { action: 'Restart', onExitCodes: { containerName: 'other', operator: 'In', values: [0, 5, 5, 2] } },
            { action: 'Ignore' },
            { action: 'Count', onExitCodes: { operator: 'Between', values: [] }, onPodConditions: [{ type: 'Disruption Target', status: 'Maybe' }] },
          ],
        },
      }),
    })).stderr;
    expectAll(rules, [
      'spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
      'spec.podFailurePolicy.rules[1].action: Unsupported value: "Restart": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
      'spec.podFailurePolicy.rules[1].onExitCodes.containerName: Invalid value: "other": must be one of the container or initContainer names in the pod template',
      'spec.podFailurePolicy.rules[1].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator',
      'spec.podFailurePolicy.rules[1].onExitCodes.values[2]: Duplicate value: 5',
      'spec.podFailurePolicy.rules[1].onExitCodes.values: Invalid value: []int32{0, 5, 5, 2}: must be ordered',
      'spec.podFailurePolicy.rules[2]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
      'spec.podFailurePolicy.rules[3].onExitCodes.operator: Unsupported value: "Between": supported values: "In", "NotIn"',
      'spec.podFailurePolicy.rules[3].onExitCodes.values: Invalid value: []int32{}: at least one value is required',
      'spec.podFailurePolicy.rules[3].onPodConditions[0].type: Invalid value: "Disruption Target": name part must consist of alphanumeric characters',
      'spec.podFailurePolicy.rules[3].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'spec.podFailurePolicy.rules[3]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported',
      'spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"',
    ]);

    // A valid policy: the status pattern defaults to True and podReplacementPolicy to Failed; the policy cannot change.
    await kubectlOk(server(), ['create', '-f', '-'], {
      input: pfpJob('pfp-ok', {
        suspend: true,
        podFailurePolicy: {
          rules: [
            { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
            { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
          ],
        },
      }),
    });
    const ok = await json(['get', 'job', 'pfp-ok']);
    assert.equal(ok.spec.podReplacementPolicy, 'Failed');
    assert.deepEqual(ok.spec.podFailurePolicy.rules[1].onPodConditions, [{ type: 'DisruptionTarget', status: 'True' }]);
    const change = (await kubectlFails(server(), ['patch', 'job', 'pfp-ok', '--type=json', '-p', '[{"op":"replace","path":"/spec/podFailurePolicy/rules/0/onExitCodes/values","value":[43]}]'])).stderr;
    assert.match(change, /spec\.podFailurePolicy: Invalid value: .*field is immutable/);
    // The tests after this one count the Jobs of the namespace.
    await kubectlOk(server(), ['delete', 'job', 'pfp-ok', '--wait=false']);
  });

  kit('scale subresource of StatefulSets; a template change bumps the DaemonSet\'s template generation', async () => {
    const generation = (await json(['get', 'sts', 'web'])).metadata.generation as number;
    await kubectlOk(server(), ['scale', 'sts', 'web', '--replicas=5']);
    const sts = await json(['get', 'sts', 'web']);
    assert.equal(sts.spec.replicas, 5);
    assert.equal(sts.metadata.generation, generation + 1);
    const scale = JSON.parse(await kubectlOk(server(), ['get', '--raw', '/apis/apps/v1/namespaces/default/statefulsets/web/scale'])) as Json;
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec.replicas, 5);
    assert.equal(scale.status.selector, 'app=web');

    await kubectlOk(server(), ['set', 'image', 'ds/agent', 'agent=busybox:1.37']);
    const ds = await json(['get', 'ds', 'agent']);
    assert.equal(ds.metadata.annotations['deprecated.daemonset.template.generation'], '2');
    assert.equal(ds.metadata.generation, 2);

    // Status goes through its subresource only.
    await kubectlOk(server(), ['patch', 'job', 'pi', '--subresource=status', '--type=merge', '-p', '{"status":{"succeeded":1}}']);
    await kubectlOk(server(), ['patch', 'job', 'pi', '--type=merge', '-p', '{"status":{"succeeded":7}}']);
    assert.equal((await json(['get', 'job', 'pi'])).status.succeeded, 1);
  });

  kit('field selectors: metadata.* for all, status.successful for Jobs, batch\'s wording for the rest', async () => {
    await kubectlOk(server(), ['create', 'job', 'other', '--image=busybox']);
    const done = tableRows(await kubectlOk(server(), ['get', 'jobs', '--field-selector', 'status.successful=1', '-o', 'name']));
    assert.deepEqual(done, [['job.batch/pi']]);
    const notDone = tableRows(await kubectlOk(server(), ['get', 'jobs', '--field-selector', 'status.successful=0', '-o', 'name']));
    assert.deepEqual(notDone, [['job.batch/other']]);
    const byName = tableRows(await kubectlOk(server(), ['get', 'sts', '--field-selector', 'metadata.name=web', '-o', 'name']));
    assert.deepEqual(byName, [['statefulset.apps/web']]);
    const refused = (await kubectlFails(server(), ['get', 'jobs', '--field-selector', 'spec.parallelism=1'])).stderr;
    assert.match(refused, /field label "spec\.parallelism" not supported for "Job"/);
    const stsRefused = (await kubectlFails(server(), ['get', 'sts', '--field-selector', 'spec.replicas=1'])).stderr;
    assert.match(stsRefused, /"spec\.replicas" is not a known field selector: only "metadata\.name", "metadata\.namespace"/);
  });

  kit('kubectl explain reads the published schemas', async () => {
    const sts = await kubectlOk(server(), ['explain', 'statefulset.spec.updateStrategy.rollingUpdate.partition']);
    assert.match(sts, /KIND:\s+StatefulSet/);
    assert.match(sts, /FIELD: partition <integer>/);
    const cj = await kubectlOk(server(), ['explain', 'cronjob.spec.concurrencyPolicy']);
    assert.match(cj, /GROUP:\s+batch/);
    assert.match(cj, /Forbid/);
    const job = await kubectlOk(server(), ['explain', 'jobs.spec.backoffLimit']);
    assert.match(job, /FIELD: backoffLimit <integer>/);
    const ds = await kubectlOk(server(), ['explain', 'ds.spec']);
    assert.match(ds, /updateStrategy\s+<DaemonSetUpdateStrategy>/);
  });
});
