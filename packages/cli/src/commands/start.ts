/**
 * `operant start`: an embedded server with durable data under `.operant/`, a
 * kubeconfig beside it, and a hint of what to try with kubectl. (The root
 * `npm start` is the SidecarSet demo, examples/sidecarset/demo/start.ts.)
 */
import { join, resolve } from 'node:path';
import { startApiServer } from '@operant/apiserver';
import { stopOnSignals } from './server.js';

export async function runStart(opts: { dir: string }): Promise<void> {
  const dir = resolve(opts.dir);
  const kubeconfig = join(dir, 'kubeconfig');
  const server = await startApiServer({ port: 0, dataDir: join(dir, 'data'), kubeconfigPath: kubeconfig });
  stopOnSignals(server);
  const rel = join(opts.dir, 'kubeconfig');
  process.stdout.write(
    [
      `ready ${server.url}`,
      '',
      'The embedded Kubernetes API server is running; its data lives in ' + join(opts.dir, 'data') + '.',
      'Try:',
      `  kubectl --kubeconfig ${rel} get namespaces`,
      `  kubectl --kubeconfig ${rel} create deployment web --image=nginx`,
      `  kubectl --kubeconfig ${rel} get all -A`,
      '',
      'Run an operator against it (kubernetes/sample-controller on the Operant runtime):',
      `  kubectl --kubeconfig ${rel} apply -f examples/sample-controller/artifacts/examples/crd.yaml`,
      `  KUBECONFIG=${kubeconfig} npm start -w examples/sample-controller`,
      `  kubectl --kubeconfig ${rel} apply -f examples/sample-controller/artifacts/examples/example-foo.yaml`,
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}
