/**
 * A process for the leader-election tests: a manager campaigning for the
 * Lease named by argv[2] against the kubeconfig in argv[3], that prints
 * `leading <identity>` once its leader runnable starts and `stopped` after a
 * graceful shutdown (SIGTERM).
 */
import { readFileSync } from 'node:fs';
import { createLogger } from '../../logging/logger.js';
import { Manager } from '../manager.js';
import { handleSignals } from '../signals.js';

const [id, kubeconfigPath, identity] = process.argv.slice(2);
if (!id || !kubeconfigPath || !identity) throw new Error('usage: elected-process <lease> <kubeconfig> <identity>');
const mgr = await Manager.create({
  kubeconfig: { kubeconfigText: readFileSync(kubeconfigPath, 'utf8') },
  logger: createLogger({ format: 'json' }), // OPERANT_LOG_LEVEL=debug shows the election step by step
  leaderElection: { id, identity, leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 100 },
});
mgr.add({
  async start(signal) {
    process.stdout.write(`leading ${identity}\n`);
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  },
});
await mgr.start(handleSignals());
process.stdout.write('stopped\n');
