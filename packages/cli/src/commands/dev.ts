/**
 * `operant dev` (`npm run dev` in a project): kubebuilder's `make run`, and
 * more. It regenerates the manifests, picks the cluster (the kubeconfig's, or
 * an embedded API server when there is none), installs the CRDs and, pointed
 * at this machine with local certificates, the webhook configurations; runs
 * the manager; and on every change under src/ does it all again and restarts
 * the manager. Ctrl-C removes the webhook configurations and stops.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client, ensureLocalCertificates, loadKubeConfig } from '@operant/runtime';
// The installer TestEnv uses too; its subpath loads no API server (and this module is loaded only by `operant dev`).
import { installCrds, installLocalWebhooks, projectManifests, removeLocalWebhooks, type InstalledWebhooks } from '@operant/testing/install';
import { devCluster } from '../dev/cluster.js';
import { ManagerProcess } from '../dev/manager-process.js';
import { watchSources } from '../dev/watch.js';
import { generateProject } from './generate.js';
import { parseNodes } from './server.js';

export interface DevFlags {
  kubeconfig?: string;
  embedded?: boolean;
  watch: boolean;
  /** Simulated nodes for an embedded server (default 3; 0 for a bare API server). */
  nodes?: string;
}

/** A free port for the webhook server (the manager binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const say = (line: string): void => void process.stdout.write(`operant dev: ${line}\n`);

export async function runDev(flags: DevFlags): Promise<void> {
  const dir = process.cwd();
  generateProject(dir);
  const cluster = await devCluster({ kubeconfig: flags.kubeconfig, embedded: flags.embedded, dir, nodes: parseNodes(flags.nodes ?? '3') });
  say(`using ${cluster.describe}`);
  const client = Client.fromConfig(await loadKubeConfig({ path: cluster.kubeconfig }));
  const webhookPort = await freePort();
  const certificates = await ensureLocalCertificates(join(dir, '.operant', 'webhook-certs'));
  let hooks: InstalledWebhooks = [];

  // Installed again on every change, so what is there already is replaced.
  const install = async (): Promise<void> => {
    const manifests = await projectManifests(dir);
    const crds = await installCrds(client, manifests.crds, { replace: true });
    hooks = await installLocalWebhooks(client, manifests.webhooks, { port: webhookPort, caPem: certificates.caPem }, { replace: true });
    say(`installed ${crds.length} CRD(s) and ${hooks.length} webhook configuration(s)`);
  };
  await install();
  const manager = new ManagerProcess({ dir, kubeconfig: cluster.kubeconfig, webhookPort });
  manager.start();
  say(`manager started; kubectl --kubeconfig ${cluster.kubeconfig} get all -A`);

  let queue = Promise.resolve();
  const watcher = flags.watch
    ? watchSources(join(dir, 'src'), (files) => {
        queue = queue.then(async () => {
          const started = performance.now();
          say(`changed: ${files.join(', ')}`);
          try {
            generateProject(dir);
            await install();
            await manager.restart();
            say(`regenerated and restarted in ${Math.round(performance.now() - started)} ms`);
          } catch (err) {
            say(`not restarted: ${err instanceof Error ? err.message : String(err)}`);
          }
        });
      })
    : undefined;

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  watcher?.close();
  await queue;
  await manager.stop();
  await removeLocalWebhooks(client, hooks);
  client.close();
  await cluster.stop();
  say('stopped');
}
