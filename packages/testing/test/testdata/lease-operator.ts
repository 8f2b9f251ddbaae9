/**
 * An operator as a Go one looks from outside, for the Replicas tests: it
 * reads KUBECONFIG, campaigns for a Lease under client-go's identity
 * (hostname_uuid, never printed), and writes what client-go and
 * controller-runtime write: klog text lines on standard error ("successfully
 * acquired lease ns/name") and zap's JSON "Reconciler error" lines. On
 * SIGTERM it releases the Lease and exits 0.
 *
 * Environment: LEASE_NAME, LEASE_NAMESPACE; IGNORE_SIGTERM=1 to keep running
 * after SIGTERM (the grace period's SIGKILL ends it); RECONCILE_ERROR=text to
 * log that reconcile error every 200 ms while leading.
 */
import { Client, LeaderElector, LeaseLock, leaderIdentity, loadKubeConfig, silentLogger } from '@operant/runtime';

const name = process.env.LEASE_NAME ?? 'lease-operator';
const namespace = process.env.LEASE_NAMESPACE ?? 'default';
const klog = (text: string): void => void process.stderr.write(`I1204 17:00:00.000000 ${process.pid} leaderelection.go:268] ${text}\n`);

const client = Client.fromConfig(await loadKubeConfig());
const stop = new AbortController();
process.on('SIGTERM', () => {
  if (process.env.IGNORE_SIGTERM !== '1') stop.abort();
});
let errors: NodeJS.Timeout | undefined;
const elector = new LeaderElector(new LeaseLock(client, { name, namespace, identity: leaderIdentity() }), {
  name,
  leaseDurationMs: 3000,
  renewDeadlineMs: 2500,
  retryPeriodMs: 250,
  logger: silentLogger,
  onStartedLeading: () => {
    klog(`successfully acquired lease ${namespace}/${name}`);
    const error = process.env.RECONCILE_ERROR;
    if (error) {
      errors = setInterval(() => {
        process.stdout.write(`${JSON.stringify({ level: 'error', msg: 'Reconciler error', controller: 'widget', namespace, name: 'w1', reconcileID: '1', error })}\n`);
      }, 200);
    }
  },
});
klog(`attempting to acquire leader lease ${namespace}/${name}...`);
const outcome = await elector.run(stop.signal);
clearInterval(errors);
client.close();
process.exit(outcome === 'lost' ? 1 : 0);
