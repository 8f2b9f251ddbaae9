/**
 * ValidatingAdmissionPolicy enforcement (issue 12): what a matching policy
 * costs a write. ConfigMap creates over HTTPS (keep-alive, 8 connections) into
 * an embedded server in this process, in a namespace one policy applies to
 * (a variable, three validations, one with a messageExpression, one Deny
 * binding), against creates into a namespace no policy applies to, in the same
 * server and the same run, rounds interleaved. CPU time per create counts this
 * whole process (client and server), which is steadier than wall time on a
 * loaded machine; creates/s is reported beside it.
 *
 * Alone: `node --conditions=source --import tsx bench/policy.ts` prints a table;
 * `policySection(rounds, log)` gives the rows to bench/run.ts.
 */
import { pathToFileURL } from 'node:url';
import { startApiServer } from '@operant/apiserver';
import { Client, closedLoop } from './client.js';
import { configMap } from './fixtures.js';
import { median } from './stats.js';
import { fmt, render, row, type Row } from './table.js';

type Log = (text: string) => void;

const createsPerRound = Number(process.env.BENCH_POLICY_CREATES ?? 2_000);
const connections = 8;

const policy = JSON.stringify({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'bench-configmaps' },
  spec: {
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'bench-policy' } },
    },
    variables: [{ name: 'keys', expression: 'has(object.data) ? object.data.size() : 0' }],
    validations: [
      { expression: 'variables.keys <= 16', messageExpression: "'at most 16 keys, not ' + string(variables.keys)" },
      { expression: "!object.metadata.name.startsWith('forbidden-')", reason: 'Forbidden' },
      { expression: "!has(object.data) || object.data.all(k, k.matches('^[a-z][a-z0-9-]*$'))", message: 'keys are lower-case words' },
    ],
  },
});
const binding = JSON.stringify({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'bench-configmaps' },
  spec: { policyName: 'bench-configmaps', validationActions: ['Deny'] },
});

/** µs of this process's CPU per create, and creates/s, for `count` creates into `namespace`. */
async function measure(client: Client, namespace: string, tag: string, count: number): Promise<{ cpuUs: number; perSecond: number }> {
  const cpu = process.cpuUsage();
  const r = await closedLoop(connections, { total: count }, async (w, i) => {
    await client.ok('POST', `/api/v1/namespaces/${namespace}/configmaps`, configMap(`${tag}-${w}-${i}`));
  });
  const used = process.cpuUsage(cpu);
  return { cpuUs: (used.user + used.system) / r.ops, perSecond: r.perSecond };
}

export async function policySection(rounds: number, log: Log): Promise<Row[]> {
  const server = await startApiServer({ port: 0 });
  const client = new Client({ url: server.url, caPem: server.caPem, token: server.adminToken }, connections);
  try {
    for (const ns of ['bench-plain', 'bench-policy']) {
      await client.ok('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
    }
    await client.ok('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', policy);
    await client.ok('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', binding);
    // The policy is in force: a create it refuses proves it before anything is measured.
    const refused = await client.send('POST', '/api/v1/namespaces/bench-policy/configmaps', configMap('forbidden-x'));
    if (refused.status !== 403) throw new Error(`the policy did not refuse: ${refused.status} ${refused.body.toString('utf8')}`);
    log(`policy: ${createsPerRound} ConfigMap creates per round, ${connections} connections, with and without a matching policy`);
    await measure(client, 'bench-plain', 'warm', 500);
    await measure(client, 'bench-policy', 'warm', 500);
    const plain: Array<{ cpuUs: number; perSecond: number }> = [];
    const withPolicy: Array<{ cpuUs: number; perSecond: number }> = [];
    for (let round = 0; round < rounds; round++) {
      plain.push(await measure(client, 'bench-plain', `r${round}`, createsPerRound));
      withPolicy.push(await measure(client, 'bench-policy', `r${round}`, createsPerRound));
      log(`  round ${round}: plain ${fmt.us(plain[round]!.cpuUs)} CPU/create, ${fmt.rate(plain[round]!.perSecond)}; policy ${fmt.us(withPolicy[round]!.cpuUs)}, ${fmt.rate(withPolicy[round]!.perSecond)}`);
    }
    return [
      row('ConfigMap create, a matching policy (3 validations): CPU per create', withPolicy.map((r) => r.cpuUs), plain.map((r) => r.cpuUs), fmt.us, 'no policy applies', '≤ 1.25×', (v) => v <= 1.25 * median(plain.map((r) => r.cpuUs))),
      row('ConfigMap create, a matching policy: creates/s', withPolicy.map((r) => r.perSecond), plain.map((r) => r.perSecond), fmt.rate, 'no policy applies', '≥ 0.8×', (v) => v >= 0.8 * median(plain.map((r) => r.perSecond))),
    ];
  } finally {
    client.close();
    await server.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await policySection(Number(process.env.BENCH_ROUNDS ?? 3), (t) => process.stderr.write(`${t}\n`));
  console.log(render(rows));
}
