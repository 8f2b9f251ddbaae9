/**
 * The custom resource of the `crd` benchmark: an `Application` kind with a
 * realistic schema (52 fields across spec and status: strings with patterns and
 * maxLength, integers with bounds, enums, nested objects, map lists, a set, a
 * map, a date-time, defaults) and 5 CEL rules with messageExpressions, one of
 * them a transition rule. The same kind is also served by a CRD without checks
 * (an object schema with x-kubernetes-preserve-unknown-fields and no rules).
 */
import type { OpenApiSchema } from '@operant/apimachinery';

const str = (maxLength: number, pattern?: string, extra: OpenApiSchema = {}): OpenApiSchema => ({
  type: 'string',
  maxLength,
  ...(pattern ? { pattern } : {}),
  ...extra,
});
const int = (minimum: number, maximum: number, extra: OpenApiSchema = {}): OpenApiSchema => ({ type: 'integer', format: 'int32', minimum, maximum, ...extra });
const enumOf = (values: string[], def?: string): OpenApiSchema => ({ type: 'string', enum: values, ...(def ? { default: def } : {}) });

const dns1123Label = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const quantity = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

/** The checked schema: every field typed and bounded, 5 CEL rules. */
export const checkedSchema: OpenApiSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['owner', 'image', 'replicas'],
      'x-kubernetes-validations': [
        {
          rule: 'self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas',
          messageExpression: "'replicas ' + string(self.replicas) + ' must lie between minReplicas ' + string(self.minReplicas) + ' and maxReplicas ' + string(self.maxReplicas)",
        },
        {
          rule: '!has(self.healthCheck) || (has(self.ports) && self.ports.exists(p, p.port == self.healthCheck.port))',
          messageExpression: "'healthCheck.port ' + string(self.healthCheck.port) + ' is not one of spec.ports'",
        },
        {
          rule: "self.tier != 'free' || self.maxReplicas <= 3",
          messageExpression: "'the free tier allows at most 3 replicas, not ' + string(self.maxReplicas)",
        },
      ],
      properties: {
        displayName: str(63),
        owner: str(254, '^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$', {
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', messageExpression: "'owner is immutable (was ' + oldSelf + ')'" }],
        }),
        tier: enumOf(['free', 'standard', 'premium'], 'standard'),
        replicas: int(0, 100, { default: 1 }),
        minReplicas: int(0, 100, { default: 1 }),
        maxReplicas: int(1, 100, { default: 10 }),
        paused: { type: 'boolean', default: false },
        image: {
          type: 'object',
          required: ['repository'],
          properties: {
            repository: str(255, '^[a-z0-9]+([._/-][a-z0-9]+)*$'),
            tag: str(128, '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$', { default: 'latest' }),
            pullPolicy: enumOf(['Always', 'IfNotPresent', 'Never'], 'IfNotPresent'),
          },
        },
        resources: {
          type: 'object',
          properties: {
            cpu: str(32, quantity),
            memory: str(32, quantity),
            gpus: int(0, 8, { default: 0 }),
          },
        },
        ports: {
          type: 'array',
          maxItems: 16,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name', 'port'],
            properties: {
              name: str(15, dns1123Label),
              port: int(1, 65535),
              protocol: enumOf(['TCP', 'UDP', 'SCTP'], 'TCP'),
              appProtocol: str(63),
            },
          },
        },
        env: {
          type: 'array',
          maxItems: 64,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: str(128, '^[A-Za-z_][A-Za-z0-9_]*$'),
              value: str(4096),
            },
          },
        },
        domains: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'set', items: str(253, '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$') },
        podLabels: { type: 'object', maxProperties: 32, additionalProperties: str(63, '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$') },
        rollout: {
          type: 'object',
          properties: {
            strategy: enumOf(['RollingUpdate', 'Recreate', 'BlueGreen'], 'RollingUpdate'),
            maxSurgePercent: int(0, 100, { default: 25 }),
            maxUnavailablePercent: int(0, 100, { default: 25 }),
            progressDeadlineSeconds: int(1, 3600, { default: 600 }),
          },
        },
        healthCheck: {
          type: 'object',
          required: ['port'],
          'x-kubernetes-validations': [
            {
              rule: 'self.timeoutSeconds < self.periodSeconds',
              messageExpression: "'timeoutSeconds ' + string(self.timeoutSeconds) + ' must be less than periodSeconds ' + string(self.periodSeconds)",
            },
          ],
          properties: {
            path: str(255, '^/[^\\s]*$', { default: '/healthz' }),
            port: int(1, 65535),
            periodSeconds: int(1, 300, { default: 10 }),
            timeoutSeconds: int(1, 60, { default: 1 }),
            failureThreshold: int(1, 10, { default: 3 }),
          },
        },
        schedule: {
          type: 'object',
          properties: {
            maintenanceWindow: str(64, '^(\\S+\\s+){4}\\S+$'),
            timeZone: str(64, '^[A-Za-z_]+(/[A-Za-z_]+)*$', { default: 'UTC' }),
          },
        },
      },
    },
    status: {
      type: 'object',
      properties: {
        phase: enumOf(['Pending', 'Running', 'Degraded', 'Failed']),
        observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
        readyReplicas: int(0, 100),
        availableReplicas: int(0, 100),
        updatedReplicas: int(0, 100),
        message: str(1024),
        url: str(2048, '^https?://'),
        endpoints: { type: 'array', maxItems: 16, items: str(64) },
        conditions: {
          type: 'array',
          maxItems: 8,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: {
            type: 'object',
            required: ['type', 'status', 'lastTransitionTime'],
            properties: {
              type: str(316, '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$'),
              status: enumOf(['True', 'False', 'Unknown']),
              reason: str(1024, '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'),
              message: str(32768),
              lastTransitionTime: { type: 'string', format: 'date-time' },
              observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
            },
          },
        },
      },
    },
  },
};

/** The unchecked schema: an object that keeps whatever it is given. */
export const uncheckedSchema: OpenApiSchema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** The number of fields (properties and item/map value fields) a schema declares below its root. */
export function countFields(s: OpenApiSchema): number {
  let n = 0;
  for (const p of Object.values(s.properties ?? {})) n += 1 + countFields(p);
  if (s.items) n += countFields(s.items);
  if (typeof s.additionalProperties === 'object') n += countFields(s.additionalProperties);
  return n;
}

/** The number of x-kubernetes-validations rules in a schema. */
export function countRules(s: OpenApiSchema): number {
  let n = s['x-kubernetes-validations']?.length ?? 0;
  for (const p of Object.values(s.properties ?? {})) n += countRules(p);
  if (s.items) n += countRules(s.items);
  if (typeof s.additionalProperties === 'object') n += countRules(s.additionalProperties);
  return n;
}

export const crdGroups = { checked: 'checked.bench.operant.dev', unchecked: 'unchecked.bench.operant.dev' } as const;

/** A namespaced CRD for kind Application in `group`, one version v1 (no subresources: status is written, and checked, on create). */
export function applicationCrd(group: string, schema: OpenApiSchema): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `applications.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'applications', singular: 'application', kind: 'Application', listKind: 'ApplicationList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  });
}

/**
 * An Application as an operator's user writes it, with a status as its
 * controller writes it; some defaulted fields are left out so that defaulting
 * has work to do. Valid against the checked schema (nothing to prune).
 */
export function application(group: string, name: string, i: number): Record<string, unknown> {
  return {
    apiVersion: `${group}/v1`,
    kind: 'Application',
    metadata: { name, namespace: 'default', labels: { app: 'bench', shard: String(i % 100) } },
    spec: {
      displayName: `Bench application ${i}`,
      owner: 'team-platform@example.com',
      tier: 'premium',
      replicas: 3,
      minReplicas: 2,
      maxReplicas: 12,
      image: { repository: 'registry.example.com/shop/frontend', tag: 'v1.27.3' },
      resources: { cpu: '500m', memory: '256Mi' },
      ports: [
        { name: 'http', port: 8080, appProtocol: 'http' },
        { name: 'metrics', port: 9090 },
        { name: 'grpc', port: 9000, protocol: 'TCP' },
      ],
      env: [
        { name: 'LOG_LEVEL', value: 'info' },
        { name: 'SHARD', value: String(i % 100) },
        { name: 'DATABASE_URL', value: 'postgres://db.example.com:5432/shop' },
        { name: 'FEATURE_FLAGS', value: 'checkout-v2,search-v3' },
      ],
      domains: ['shop.example.com', 'www.shop.example.com'],
      podLabels: { team: 'platform', 'cost-center': 'cc-1234' },
      rollout: { strategy: 'RollingUpdate', maxSurgePercent: 50 },
      healthCheck: { path: '/ready', port: 8080, periodSeconds: 5 },
      schedule: { maintenanceWindow: '0 3 * * 0', timeZone: 'Europe/Paris' },
    },
    status: {
      phase: 'Running',
      observedGeneration: 1,
      readyReplicas: 3,
      availableReplicas: 3,
      updatedReplicas: 3,
      message: 'all replicas are ready',
      url: 'https://shop.example.com',
      endpoints: ['10.0.0.11:8080', '10.0.0.12:8080', '10.0.0.13:8080'],
      conditions: [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.', lastTransitionTime: '2025-01-01T00:00:00Z', observedGeneration: 1 },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet has successfully progressed.', lastTransitionTime: '2025-01-01T00:00:00Z' },
      ],
    },
  };
}
