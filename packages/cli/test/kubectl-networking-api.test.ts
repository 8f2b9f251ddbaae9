/**
 * The real kubectl against `operant server`: networking.k8s.io/v1
 * Ingresses, IngressClasses and NetworkPolicies are served with kube's
 * defaults, validation messages, printer columns and short names, and
 * `kubectl create ingress` (a protobuf body) works.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const json = async (args: string[]): Promise<Json> => JSON.parse(await kubectlOk(server(), [...args, '-o', 'json'])) as Json;

describe('kubectl and the networking.k8s.io APIs', () => {
  kit('api-resources lists them with kube\'s short names and scopes', async () => {
    const rows = tableRows(await kubectlOk(server(), ['api-resources', '--api-group=networking.k8s.io'])).slice(1);
    assert.deepEqual(rows, [
      ['ingressclasses', 'networking.k8s.io/v1', 'false', 'IngressClass'],
      ['ingresses', 'ing', 'networking.k8s.io/v1', 'true', 'Ingress'],
      ['networkpolicies', 'netpol', 'networking.k8s.io/v1', 'true', 'NetworkPolicy'],
    ]);
  });

  kit('create ingressclass and ingress print kubectl\'s columns; an IngressClass\'s parameters default to the Cluster scope', async () => {
    await applyYaml(
      server(),
      `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec:
  controller: k8s.io/ingress-nginx
  parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: external-lb}
`,
    );
    assert.equal((await json(['get', 'ingressclass', 'nginx'])).spec.parameters.scope, 'Cluster');
    const classes = tableRows(await kubectlOk(server(), ['get', 'ingressclass']));
    assert.deepEqual(classes[0], ['NAME', 'CONTROLLER', 'PARAMETERS', 'AGE']);
    assert.deepEqual(classes[1]!.slice(0, 3), ['nginx', 'k8s.io/ingress-nginx', 'IngressParameters.k8s.example.com/external-lb']);

    await kubectlOk(server(), ['create', 'ingress', 'web', '--class=nginx', '--rule=foo.com/bar=svc1:8080,tls=my-cert', '--rule=bar.com/*=svc2:http']);
    const ing = await json(['get', 'ing', 'web']);
    assert.deepEqual(ing.spec.rules[0].http.paths[0], { path: '/bar', pathType: 'Exact', backend: { service: { name: 'svc1', port: { number: 8080 } } } });
    assert.deepEqual(ing.spec.rules[1].http.paths[0].backend.service.port, { name: 'http' });
    const rows = tableRows(await kubectlOk(server(), ['get', 'ingress']));
    assert.deepEqual(rows[0], ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
    // No load balancer yet: ADDRESS is empty (and so missing from the split row).
    assert.deepEqual(rows[1]!.slice(0, 4), ['web', 'nginx', 'foo.com,bar.com', '80, 443']);

    // The controller of an IngressClass cannot change.
    const immutable = await kubectlFails(server(), ['patch', 'ingressclass', 'nginx', '--type=merge', '-p', '{"spec":{"controller":"example.com/other"}}']);
    assert.match(immutable.stderr, /spec.controller: Invalid value: "example.com\/other": field is immutable/);
  });

  kit('an Ingress is refused with kube\'s messages', async () => {
    const noRules = await kubectlFails(server(), ['apply', '-f', '-'], { input: 'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: empty}\nspec: {}\n' });
    assert.match(noRules.stderr, /spec: Invalid value: null: either `defaultBackend` or `rules` must be specified/);
    const bad = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: bad}
spec:
  rules:
  - host: 10.0.0.1
    http:
      paths:
      - {path: foo, pathType: Prefix, backend: {service: {name: web, port: {number: 70000}}}}
      - {path: /, backend: {service: {name: web}}}
`,
    });
    assert.match(bad.stderr, /spec.rules\[0\].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address/);
    assert.match(bad.stderr, /spec.rules\[0\].http.paths\[0\].path: Invalid value: "foo": must be an absolute path/);
    assert.match(bad.stderr, /spec.rules\[0\].http.paths\[0\].backend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive/);
    assert.match(bad.stderr, /spec.rules\[0\].http.paths\[1\].pathType: Required value: pathType must be specified/);
  });

  kit('a NetworkPolicy gets kube\'s defaults (policyTypes, port protocols), the Pod-Selector column and kube\'s validation', async () => {
    await applyYaml(
      server(),
      `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: db}
spec:
  podSelector: {matchLabels: {role: db}}
  ingress:
  - from: [{podSelector: {matchLabels: {role: api}}}]
    ports: [{port: 5432}]
  egress:
  - to: [{ipBlock: {cidr: 10.0.0.0/24}}]
`,
    );
    const np = await json(['get', 'netpol', 'db']);
    assert.deepEqual(np.spec.policyTypes, ['Ingress', 'Egress']);
    assert.deepEqual(np.spec.ingress[0].ports, [{ port: 5432, protocol: 'TCP' }]);
    const rows = tableRows(await kubectlOk(server(), ['get', 'networkpolicies']));
    assert.deepEqual(rows[0], ['NAME', 'POD-SELECTOR', 'AGE']);
    assert.deepEqual(rows[1]!.slice(0, 2), ['db', 'role=db']);

    const bad = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: bad}\nspec:\n  podSelector: {}\n  ingress: [{from: [{}], ports: [{protocol: ICMP, port: 80}]}]\n  policyTypes: [Sideways]\n',
    });
    assert.match(bad.stderr, /spec.ingress\[0\].ports\[0\].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"/);
    assert.match(bad.stderr, /spec.ingress\[0\].from\[0\]: Required value: must specify a peer/);
    assert.match(bad.stderr, /spec.policyTypes\[0\]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"/);
  });
});
