/**
 * examples/sample-controller as the chaos tests run it: wired as its main.ts
 * wires it but connected through a fault proxy, and the example's check of
 * what it owns (one Deployment per Foo, as asked, with the Foo's status following it).
 */
import { Client, Deployment, EventRecorder, type Logger } from '@operant/runtime';
import { SharedInformerFactory } from '@operant/runtime/cache';
import { FooController } from '@operant/sample-controller/src/controller.js';
import { FooKind } from '@operant/sample-controller/src/foo.js';
import type { FaultProxy } from '../../src/index.js';

/** What converged means for the sample-controller: the example's own check. */
export { problems } from '@operant/sample-controller/test/problems.js';

/** The sample controller as its main.ts wires it, but connected through `proxy`. */
export async function runSampleController(proxy: FaultProxy, signal: AbortSignal, logger: Logger): Promise<() => Promise<void>> {
  const client = Client.fromConfig(await proxy.clientConfig());
  const informers = new SharedInformerFactory(client, { logger, resyncPeriodMs: 30_000 });
  const recorder = new EventRecorder(client, { reportingController: 'sample-controller', logger });
  const controller = new FooController({ client, foos: informers.informerFor(FooKind), deployments: informers.informerFor(Deployment), recorder, logger });
  informers.startAll(signal);
  const running = controller.run(2, signal);
  return async () => {
    await running;
    await informers.stopAll();
    await recorder.close();
    client.close();
  };
}

