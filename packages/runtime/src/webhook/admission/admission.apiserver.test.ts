/**
 * Admission webhooks against the embedded API server: real Mutating and
 * Validating WebhookConfigurations point at a WebhookServer over HTTPS
 * (caBundle = the generated CA), and the results are read back with the
 * client and the real kubectl: defaulting of a custom resource, validation
 * errors and warnings as kubectl prints them, a Pod mutation adding a
 * container (with a lookup through the injected client), dry-run.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@operant/apimachinery';
import {
  ConfigMap,
  CustomResourceDefinition,
  MutatingWebhookConfiguration,
  Pod,
  ValidatingWebhookConfiguration,
  type CustomResourceDefinitionObject,
  type Typed,
  type WebhookRule,
} from '../../builtins.js';
import type { ControllerLogger } from '../../controller/logger.js';
import { defineKind } from '../../kind.js';
import { useApiServer } from '../../testdata/api-server.js';
import { generateServingCertificate } from '../certs/generate.js';
import { WebhookServer } from '../server.js';
import {
  admissionHandler,
  decodeObject,
  defaulter,
  fieldErrors,
  mutatePath,
  patched,
  validatePath,
  validator,
  ValidationError,
  allowed,
  type FieldError,
} from './index.js';

const kubectlPath = '/usr/bin/kubectl';
const hasKubectl = existsSync(kubectlPath);
const quiet: ControllerLogger = { debug() {}, info() {}, warn() {}, error() {} };

interface WidgetObject extends KubeObject {
  spec: { replicas?: number; mode?: string; legacy?: boolean };
}

const Widget = defineKind<WidgetObject>({ group: 'example.operant.dev', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });

const widgetCrd: Typed<CustomResourceDefinitionObject> = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.operant.dev' },
  spec: {
    group: 'example.operant.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { replicas: { type: 'integer' }, mode: { type: 'string' }, legacy: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  },
};

interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('admission webhooks served to the embedded API server', () => {
  let webhooks: WebhookServer;
  let stop: AbortController;
  let running: Promise<void>;
  let dir: string;
  let kubeconfigPath: string;
  const dryRuns: boolean[] = [];

  function kubectl(args: string[], input?: string): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = execFile(
        kubectlPath,
        ['--kubeconfig', kubeconfigPath, ...args],
        { env: { ...process.env, KUBECACHEDIR: join(dir, 'cache') }, timeout: 30_000 },
        (err, stdout, stderr) => {
          const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      if (input !== undefined) child.stdin!.end(input);
    });
  }

  function needsKubectl(t: TestContext): boolean {
    if (hasKubectl) return true;
    t.skip(`kubectl not found at ${kubectlPath}`);
    return false;
  }

  // Registered before the fixture's: after hooks run in order, so the webhook server stops before the API server.
  after(async () => {
    stop?.abort();
    await running;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const api = useApiServer();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'operant-webhook-'));
    kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, api.server.kubeconfig);

    const certs = await generateServingCertificate();
    webhooks = new WebhookServer({ certificates: certs.source, host: '127.0.0.1', port: 0, logger: quiet });
    webhooks.register(
      mutatePath(Widget),
      defaulter(Widget, {
        default(obj, ctx) {
          dryRuns.push(ctx.dryRun);
          obj.spec.replicas ??= 1;
          obj.spec.mode ??= 'auto';
          obj.metadata.labels = { ...obj.metadata.labels, 'example.operant.dev/defaulted': 'true' };
        },
      }),
    );
    webhooks.register(
      validatePath(Widget),
      validator(Widget, {
        validateCreate(obj) {
          const errs: FieldError[] = [];
          if ((obj.spec.replicas ?? 0) > 5) errs.push(fieldErrors.invalid('spec.replicas', obj.spec.replicas, 'must be at most 5'));
          if (obj.spec.mode !== undefined && !['auto', 'manual'].includes(obj.spec.mode)) errs.push(fieldErrors.notSupported('spec.mode', obj.spec.mode, ['auto', 'manual']));
          if (errs.length > 0) throw new ValidationError(errs);
          return obj.spec.legacy ? ['spec.legacy is deprecated; use spec.mode'] : [];
        },
        validateDelete(obj) {
          if (obj.metadata.labels?.protected === 'true') throw new Error(`widget ${obj.metadata.name} is protected`);
        },
      }),
    );
    webhooks.register(
      '/inject-sidecar',
      admissionHandler(
        async (req, ctx) => {
          const pod = decodeObject(req, Pod);
          if (pod.spec!.containers.some((c) => c.name === 'sidecar')) return allowed();
          // Reads another resource through the injected client, as the SidecarSet webhook reads SidecarSets.
          const settings = await ctx.client.get(ConfigMap, 'sidecar-settings', { namespace: req.namespace ?? 'default' });
          const mutated = structuredClone(pod);
          mutated.spec!.containers.push({ name: 'sidecar', image: settings.data?.image ?? 'busybox' });
          return patched(pod, mutated);
        },
        { client: api.client },
      ),
    );
    stop = new AbortController();
    running = webhooks.start(stop.signal);
    const { port } = await webhooks.listening();

    await api.client.create(CustomResourceDefinition, widgetCrd);
    const clientConfig = (path: string) => ({ url: `https://127.0.0.1:${port}${path}`, caBundle: Buffer.from(certs.caPem).toString('base64') });
    const widgetRules: WebhookRule[] = [{ apiGroups: ['example.operant.dev'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['widgets'] }];
    await api.client.create(MutatingWebhookConfiguration, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'operant-test-mutating' },
      webhooks: [
        { name: 'mwidget.example.operant.dev', clientConfig: clientConfig(mutatePath(Widget)), rules: widgetRules, sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail' },
        {
          name: 'inject.example.operant.dev',
          clientConfig: clientConfig('/inject-sidecar'),
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
        },
      ],
    });
    await api.client.create(ValidatingWebhookConfiguration, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'operant-test-validating' },
      webhooks: [
        {
          name: 'vwidget.example.operant.dev',
          clientConfig: clientConfig(validatePath(Widget)),
          rules: [{ ...widgetRules[0], operations: ['CREATE', 'UPDATE', 'DELETE'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
        },
      ],
    });
  });

  test('a defaulted custom resource is read back through the client', async () => {
    const created = await api.client.create(Widget, { apiVersion: 'example.operant.dev/v1', kind: 'Widget', metadata: { name: 'by-client', namespace: 'default' }, spec: {} });
    assert.deepEqual(created.spec, { replicas: 1, mode: 'auto' });
    const read = await api.client.get(Widget, 'by-client', { namespace: 'default' });
    assert.deepEqual(read.spec, { replicas: 1, mode: 'auto' });
    assert.equal(read.metadata.labels?.['example.operant.dev/defaulted'], 'true');
  });

  test('defaulting is visible in kubectl get -o yaml', async (t) => {
    if (!needsKubectl(t)) return;
    const applied = await kubectl(['apply', '-f', '-'], 'apiVersion: example.operant.dev/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: default\nspec:\n  replicas: 3\n');
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /widget.example.operant.dev\/w1 created/);
    const yaml = await kubectl(['get', 'widget', 'w1', '-n', 'default', '-o', 'yaml']);
    assert.equal(yaml.code, 0, yaml.stderr);
    assert.match(yaml.stdout, /^ {4}example\.operant\.dev\/defaulted: "true"$/m);
    assert.match(yaml.stdout, /^spec:\n {2}mode: auto\n {2}replicas: 3$/m);
  });

  test('field errors reach kubectl in kube Invalid wording', async (t) => {
    if (!needsKubectl(t)) return;
    const r = await kubectl(['apply', '-f', '-'], 'apiVersion: example.operant.dev/v1\nkind: Widget\nmetadata:\n  name: w2\n  namespace: default\nspec:\n  replicas: 9\n  mode: turbo\n');
    assert.notEqual(r.code, 0);
    // kubectl prints an Invalid status from its details (kind, name, causes), as it does for a
    // controller-runtime webhook on a real cluster; the full message is checked through the client below.
    assert.equal(
      r.stderr,
      'The Widget "w2" is invalid: \n' +
        '* spec.replicas: Invalid value: 9: must be at most 5\n' +
        '* spec.mode: Unsupported value: "turbo": supported values: "auto", "manual"\n',
    );
    await assert.rejects(api.client.get(Widget, 'w2', { namespace: 'default' }), /not found/);
  });

  test('the client sees the Invalid status with its causes', async () => {
    await assert.rejects(
      api.client.create(Widget, { apiVersion: 'example.operant.dev/v1', kind: 'Widget', metadata: { name: 'w5', namespace: 'default' }, spec: { replicas: 7 } }),
      (err: unknown) => {
        const e = err as { code: number; reason: string; details?: { causes?: unknown[]; kind?: string; name?: string } };
        assert.equal(
          (err as Error).message,
          'admission webhook "vwidget.example.operant.dev" denied the request: Widget.example.operant.dev "w5" is invalid: spec.replicas: Invalid value: 7: must be at most 5',
        );
        assert.equal(e.code, 422);
        assert.equal(e.reason, 'Invalid');
        assert.equal(e.details?.kind, 'Widget');
        assert.equal(e.details?.name, 'w5');
        assert.deepEqual(e.details?.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: 7: must be at most 5', field: 'spec.replicas' }]);
        return true;
      },
    );
  });

  test('warnings are printed by kubectl and the object is created', async (t) => {
    if (!needsKubectl(t)) return;
    const r = await kubectl(['create', '-f', '-'], 'apiVersion: example.operant.dev/v1\nkind: Widget\nmetadata:\n  name: w3\n  namespace: default\nspec:\n  legacy: true\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^Warning: spec\.legacy is deprecated; use spec\.mode$/m);
    assert.match(r.stdout, /widget.example.operant.dev\/w3 created/);
  });

  test('a plain error denies with 403 and its message', async (t) => {
    if (!needsKubectl(t)) return;
    await api.client.create(Widget, {
      apiVersion: 'example.operant.dev/v1',
      kind: 'Widget',
      metadata: { name: 'keep', namespace: 'default', labels: { protected: 'true' } },
      spec: {},
    });
    const r = await kubectl(['delete', 'widget', 'keep', '-n', 'default']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /^Error from server \(Forbidden\): admission webhook "vwidget\.example\.operant\.dev" denied the request: widget keep is protected$/m);
    assert.ok(await api.client.get(Widget, 'keep', { namespace: 'default' }));
  });

  test('a server-side dry run reaches the handler as dryRun and persists nothing', async (t) => {
    if (!needsKubectl(t)) return;
    dryRuns.length = 0;
    const r = await kubectl(['create', '--dry-run=server', '-o', 'yaml', '-f', '-'], 'apiVersion: example.operant.dev/v1\nkind: Widget\nmetadata:\n  name: dry\n  namespace: default\nspec: {}\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}mode: auto$/m);
    assert.deepEqual(dryRuns, [true]);
    await assert.rejects(api.client.get(Widget, 'dry', { namespace: 'default' }), /not found/);
  });

  test('a raw Pod handler adds a container, reading its image through the injected client', async () => {
    await api.client.create(ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sidecar-settings', namespace: 'default' }, data: { image: 'envoy:1.30' } });
    await api.client.create(Pod, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
    const pod = await api.client.get(Pod, 'web', { namespace: 'default' });
    assert.deepEqual(
      pod.spec?.containers.map((c) => [c.name, c.image]),
      [
        ['app', 'nginx'],
        ['sidecar', 'envoy:1.30'],
      ],
    );
  });
});
