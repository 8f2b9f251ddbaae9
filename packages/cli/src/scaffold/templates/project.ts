/**
 * The files `operant init` writes besides config/: package.json (npm scripts
 * standing for kubebuilder's Makefile targets), tsconfig, the manager's
 * main.ts with kubebuilder's flags, a Dockerfile, ignore files, a README, and
 * the test set-up that runs the project's controllers against the embedded
 * API server.
 */
import type { OperantPackage } from '../dependencies.js';

export interface ProjectTemplateInput {
  projectName: string;
  domain: string;
  owner?: string;
  /** How each Operant package is depended on: an exact version, or a `file:` link. */
  operantSpecs: Record<OperantPackage, string>;
  /** Versions of the tools, pinned as this repository pins them. */
  toolVersions: Record<'typescript' | 'tsx' | '@types/node' | 'kubernetes-types', string>;
  /** Whether the Operant packages are `file:` links (the README then says so). */
  linked: boolean;
}

export function packageJson(p: ProjectTemplateInput): string {
  const pkg = {
    name: p.projectName,
    version: '0.0.1',
    private: true,
    description: `The ${p.projectName} operator, made with Operant`,
    license: 'Apache-2.0',
    type: 'module',
    scripts: {
      build: 'tsc -p tsconfig.json',
      manifests: 'operant generate',
      test: 'node --import tsx --test test/*.test.ts',
      dev: 'operant dev',
      start: 'node dist/main.js',
      'crds:install': 'operant generate && kubectl apply -k config/crd',
      'crds:uninstall': 'kubectl delete --ignore-not-found -k config/crd',
      deploy: 'operant generate && node scripts/set-image.mjs && kubectl apply -k config/default',
      undeploy: 'kubectl delete --ignore-not-found -k config/default',
      'docker-build': 'docker build -t "${IMG:-controller:latest}" .',
      'build-installer': 'operant generate && node scripts/set-image.mjs && mkdir -p dist && kubectl kustomize config/default > dist/install.yaml',
    },
    dependencies: {
      '@operant/runtime': p.operantSpecs.runtime,
      'kubernetes-types': p.toolVersions['kubernetes-types'],
    },
    devDependencies: {
      '@operant/cli': p.operantSpecs.cli,
      '@operant/testing': p.operantSpecs.testing,
      '@types/node': p.toolVersions['@types/node'],
      tsx: p.toolVersions.tsx,
      typescript: p.toolVersions.typescript,
    },
    engines: { node: '>=20.18.1' },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

export const tsconfig = `{
  "compilerOptions": {
    "target": "ES2022",
    "lib": ["ES2023"],
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "types": ["node"],
    "strict": true,
    "skipLibCheck": true,
    "outDir": "dist",
    "rootDir": "src",
    "sourceMap": true
  },
  "include": ["src"]
}
`;

export function mainTs(p: ProjectTemplateInput): string {
  return `/**
 * The manager of the ${p.projectName} operator (kubebuilder's cmd/main.go): it runs the
 * controllers and webhooks registered below. \`operant create api\` and
 * \`operant create webhook\` add theirs at the scaffold markers.
 */
import { parseArgs } from 'node:util';
import { Manager, createLogger, ensureLocalCertificates, handleSignals, type ManagerOptions } from '@operant/runtime';
// +kubebuilder:scaffold:imports

const { values } = parseArgs({
  options: {
    'metrics-bind-address': { type: 'string', default: '0' },
    'health-probe-bind-address': { type: 'string', default: ':8081' },
    'leader-elect': { type: 'boolean', default: false },
    'metrics-cert-path': { type: 'string' },
    'webhook-cert-path': { type: 'string' },
    'webhook-port': { type: 'string', default: '9443' },
    kubeconfig: { type: 'string' },
  },
});

/** \`:8081\` or \`127.0.0.1:8081\`; \`0\` turns the server off, as in kubebuilder. */
function bindAddress(flag: string, text: string): { host?: string; port: number } | undefined {
  if (text === '0') return undefined;
  const m = /^(.*):(\\d+)$/.exec(text);
  if (!m) throw new Error(\`--\${flag} \${JSON.stringify(text)}: expected [host]:port, or 0 to disable\`);
  return { host: m[1] || undefined, port: Number(m[2]) };
}

const controllers: Array<(mgr: Manager) => void> = [
  // +kubebuilder:scaffold:builder
];
const webhooks: Array<(mgr: Manager) => void> = [
  // +kubebuilder:scaffold:webhook
];

const logger = createLogger();
const metrics = bindAddress('metrics-bind-address', values['metrics-bind-address']!);
const health = bindAddress('health-probe-bind-address', values['health-probe-bind-address']!);

/** Webhook certificates: a mounted directory in a cluster, generated ones for a local run. */
async function webhookOptions(): Promise<ManagerOptions['webhook']> {
  if (webhooks.length === 0) return undefined;
  const port = Number(values['webhook-port']);
  if (values['webhook-cert-path']) return { port, certDir: values['webhook-cert-path'] };
  if (process.env.KUBERNETES_SERVICE_HOST) return { port };
  return { port, certificates: (await ensureLocalCertificates('.operant/webhook-certs')).source };
}
if (values['metrics-cert-path']) logger.warn({}, '--metrics-cert-path: metrics are served over plain HTTP for now; the certificate is not used');

const mgr = await Manager.create({
  kubeconfig: values.kubeconfig ? { path: values.kubeconfig } : undefined,
  logger,
  metricsPort: metrics?.port,
  metricsHost: metrics?.host,
  healthPort: health?.port,
  healthHost: health?.host,
  leaderElection: values['leader-elect'] ? { id: '${leaderElectionId(p)}' } : undefined,
  webhook: await webhookOptions(),
});
for (const setup of controllers) setup(mgr);
for (const setup of webhooks) setup(mgr);

logger.info({}, 'starting manager');
await mgr.start(handleSignals());
`;
}

/** kubebuilder's leader election id: a hash-like prefix and the domain. */
export function leaderElectionId(p: { projectName: string; domain: string }): string {
  let h = 0;
  for (const c of `${p.projectName}.${p.domain}`) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  return `${h.toString(16).padStart(8, '0')}.${p.domain}`;
}

export const dockerfile = `# Build the manager
FROM node:20-bookworm-slim AS builder
WORKDIR /workspace
COPY package.json package-lock.json* ./
RUN npm ci
COPY tsconfig.json ./
COPY src/ src/
RUN npm run build && npm prune --omit=dev

# Run it as a non-root user, with only what it needs
FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=builder /workspace/node_modules node_modules
COPY --from=builder /workspace/dist dist
COPY --from=builder /workspace/package.json package.json
USER 65532:65532
ENTRYPOINT ["node", "dist/main.js"]
`;

export const dockerignore = `# Only what the image build needs
*
!package.json
!package-lock.json
!tsconfig.json
!src/
`;

export const gitignore = `node_modules/
dist/
.operant/
*.tsbuildinfo
`;

export const setImageScript = `// Sets the manager image in config/manager (kubebuilder's \`kustomize edit set image controller=$IMG\`).
import { readFileSync, writeFileSync } from 'node:fs';

const img = process.env.IMG ?? 'controller:latest';
const at = img.lastIndexOf(':') > img.lastIndexOf('/') ? img.lastIndexOf(':') : -1;
const [newName, newTag] = at < 0 ? [img, 'latest'] : [img.slice(0, at), img.slice(at + 1)];
const file = 'config/manager/kustomization.yaml';
const text = readFileSync(file, 'utf8');
const images = \`images:\\n- name: controller\\n  newName: \${newName}\\n  newTag: \${newTag}\\n\`;
writeFileSync(file, /^images:\\n(?:[- ].*\\n?)*/m.test(text) ? text.replace(/^images:\\n(?:[- ].*\\n?)*/m, images) : \`\${text.trimEnd()}\\n\${images}\`);
console.log(\`\${file}: controller image \${newName}:\${newTag}\`);
`;

export function readme(p: ProjectTemplateInput): string {
  const linked = p.linked
    ? `\nThe Operant packages are not published yet: package.json links them (\`file:\`) to the Operant
checkout that ran \`operant init\`. Keep that checkout installed (\`npm install\` in it) and in place.\n`
    : '';
  return `# ${p.projectName}

A Kubernetes operator made with Operant${p.owner ? `, by ${p.owner}` : ''}.
${linked}
## Getting started

\`\`\`sh
npm install
npm run manifests   # CRDs, RBAC and webhook manifests from the markers in src/ (operant generate)
npm run build       # compile to dist/
npm test            # the tests, against an embedded API server
\`\`\`

| npm script | what it does (kubebuilder's Makefile target) |
|---|---|
| \`npm run manifests\` | writes config/crd/bases, config/rbac/role.yaml, config/webhook/manifests.yaml (\`make manifests\`) |
| \`npm run build\` | compiles the manager (\`make build\`) |
| \`npm test\` | runs the tests (\`make test\`) |
| \`npm run dev\` | regenerates, installs the CRDs and webhooks, runs the manager, and again on every change in src/; against the cluster in KUBECONFIG, or an embedded API server with 3 simulated nodes when there is none (\`make run\`) |
| \`npm run crds:install\` / \`crds:uninstall\` | installs or removes the CRDs (\`make install\` / \`make uninstall\`) |
| \`npm run deploy\` / \`undeploy\` | deploys the manager with \`kubectl apply -k config/default\`, image from \`IMG\` (\`make deploy\`) |
| \`npm run docker-build\` | builds the image \`IMG\` (\`make docker-build\`) |
| \`npm run build-installer\` | writes dist/install.yaml (\`make build-installer\`) |

Add an API with \`npx operant create api --group <group> --version <version> --kind <Kind>\`, and a
webhook with \`npx operant create webhook --group <group> --version <version> --kind <Kind> --defaulting --programmatic-validation\`.
`;
}

/** The test `operant init` starts with: the environment every later test uses comes up. */
export const envTest = `import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { Namespace } from '@operant/runtime';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
before(async () => {
  env = await startTestEnv();
});
after(async () => {
  await env.stop();
});

it('the test environment serves the API, with the CRDs of the project installed', async () => {
  const namespaces = await env.client.list(Namespace);
  assert.ok(namespaces.items.some((ns) => ns.metadata.name === 'default'));
});
`;

export function testSupport(): string {
  return `/**
 * The tests' environment: @operant/testing's TestEnv, an embedded API server
 * in this process (over real HTTPS, in milliseconds) with the project's CRDs
 * installed from config/crd/bases. \`env.startManager(setup)\` runs controllers
 * against it, \`env.namespace(t)\` gives a test a namespace of its own, and
 * \`eventually\`, \`consistently\` and \`env.converges\` (from @operant/testing)
 * wait for what a controller does. \`TestEnv.start({ cluster: { nodes: 3 } })\`
 * adds simulated nodes, so that Deployments get pods that run.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TestEnv } from '@operant/testing';

export { TestEnv };

export function startTestEnv(): Promise<TestEnv> {
  // Beside this file, not the working directory: a monorepo's test runner may start elsewhere.
  const crdDir = fileURLToPath(new URL('../config/crd/bases', import.meta.url));
  return TestEnv.start(existsSync(crdDir) ? { crds: crdDir } : {});
}
`;
}
