/** The objects the benchmarks write. */

export function configMap(name: string, data: Record<string, string> = { key: 'value', other: 'a somewhat longer value, like a setting' }): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'bench' } }, data });
}

/** A pod like a small Deployment's: one container with ports, env and resources. */
export function pod(name: string, i: number): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'bench', tier: 'web', shard: String(i % 100) }, annotations: { 'bench.operant.dev/index': String(i) } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'nginx:1.27',
          ports: [{ name: 'http', containerPort: 80 }],
          env: [
            { name: 'MODE', value: 'bench' },
            { name: 'INDEX', value: String(i) },
          ],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
        },
      ],
    },
  });
}
