/**
 * `+kubebuilder:webhook` markers to the mutating and validating webhook
 * configurations, as controller-gen's pkg/webhook writes them: webhooks sorted
 * by name, served by the Service `webhook-service` in namespace `system` (which
 * kustomize renames), operations in upper case, `core` as the empty group.
 */
import { errorAt } from '../errors.js';
import type { ArgValue } from '../markers/arguments.js';
import type { MarkerValue } from '../markers/definition.js';

type Args = Record<string, ArgValue>;

const OPERATIONS: Record<string, string> = { create: 'CREATE', update: 'UPDATE', delete: 'DELETE', connect: 'CONNECT', '*': '*' };

function pick(value: string | undefined, allowed: readonly string[]): string | undefined {
  if (value === undefined || value === '') return undefined;
  return allowed.find((a) => a.toLowerCase() === value.toLowerCase()) ?? value;
}

function webhookEntry(m: MarkerValue): Record<string, unknown> {
  const a = m.value as Args;
  const fail = (message: string): never => {
    throw errorAt(m.raw, `+kubebuilder:webhook ${String(a.name)}: ${message}`);
  };
  const path = a.path as string | undefined;
  const url = a.url as string | undefined;
  if ((path && url) || (!path && !url)) fail('`url` or `path` markers are required and mutually exclusive');
  const clientConfig: Record<string, unknown> = path
    ? {
        service: {
          name: (a.serviceName as string | undefined) || 'webhook-service',
          namespace: (a.serviceNamespace as string | undefined) || 'system',
          path,
          ...(a.servicePort !== undefined ? { port: a.servicePort } : {}),
        },
      }
    : { url };
  const sideEffects = pick(a.sideEffects as string | undefined, ['None', 'NoneOnDryRun', 'Some', 'Unknown']);
  if (sideEffects === undefined || sideEffects === 'Some' || sideEffects === 'Unknown') {
    fail('sideEffects must be None or NoneOnDryRun for admissionregistration.k8s.io/v1 webhooks (set sideEffects=None)');
  }
  const matchPolicy = pick(a.matchPolicy as string | undefined, ['Exact', 'Equivalent']);
  if (matchPolicy !== undefined && matchPolicy !== 'Exact' && matchPolicy !== 'Equivalent') fail(`unknown value ${JSON.stringify(matchPolicy)} for matchPolicy`);
  const entry: Record<string, unknown> = {
    admissionReviewVersions: a.admissionReviewVersions,
    clientConfig,
    failurePolicy: pick(a.failurePolicy as string, ['Fail', 'Ignore']),
  };
  if (matchPolicy) entry.matchPolicy = matchPolicy;
  entry.name = a.name;
  if (a.mutating === true) {
    const reinvocation = pick(a.reinvocationPolicy as string | undefined, ['Never', 'IfNeeded']);
    if (reinvocation === 'Never' || reinvocation === 'IfNeeded') entry.reinvocationPolicy = reinvocation;
  }
  entry.rules = [
    {
      apiGroups: (a.groups as string[]).map((g) => (g === 'core' ? '' : g)),
      apiVersions: a.versions,
      operations: (a.verbs as string[]).map((v) => OPERATIONS[v.toLowerCase()] ?? v),
      resources: a.resources,
    },
  ];
  entry.sideEffects = sideEffects;
  if (typeof a.timeoutSeconds === 'number' && a.timeoutSeconds !== 0) entry.timeoutSeconds = a.timeoutSeconds;
  const versions = (a.webhookVersions as string[] | undefined) ?? ['v1'];
  if (versions.some((v) => v !== 'v1')) fail(`unsupported webhook version: ${versions.find((v) => v !== 'v1')}`);
  return entry;
}

/** The webhook configurations (mutating first), or none when there are no webhook markers. */
export function generateWebhookConfigurations(markers: readonly MarkerValue[], configurations: readonly MarkerValue[] = []): Record<string, unknown>[] {
  const names = { mutating: 'mutating-webhook-configuration', validating: 'validating-webhook-configuration' };
  const seen = { mutating: false, validating: false };
  for (const c of configurations) {
    const a = c.value as Args;
    const which = a.mutating === true ? 'mutating' : 'validating';
    if (seen[which]) throw errorAt(c.raw, `duplicate ${which} kubebuilder:webhookconfiguration with name ${String(a.name)}`);
    seen[which] = true;
    names[which] = a.name as string;
  }
  const sorted = [...markers].sort((x, y) => {
    const a = String((x.value as Args).name);
    const b = String((y.value as Args).name);
    return a < b ? -1 : a > b ? 1 : 0;
  });
  const out: Record<string, unknown>[] = [];
  for (const mutating of [true, false]) {
    const webhooks = sorted.filter((m) => ((m.value as Args).mutating === true) === mutating).map(webhookEntry);
    if (webhooks.length === 0) continue;
    out.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
      metadata: { name: mutating ? names.mutating : names.validating },
      webhooks,
    });
  }
  return out;
}
