/**
 * A process for the leader-election tests: a manager campaigning for the
 * Lease named by argv[2] against the kubeconfig in argv[3], that prints
 * `observed <holder>` each time its elector sees the Lease change hands (from
 * its "new leader observed" log line), `leading <identity>` once its leader
 * runnable starts, and `stopped` after a graceful shutdown (SIGTERM). Logs go
 * to stderr as JSON.
 */
import { readFileSync } from 'node:fs';
import { createLogger } from '../../logging/logger.js';
import { Manager } from '../manager.js';
import { handleSignals } from '../signals.js';

const [id, kubeconfigPath, identity] = process.argv.slice(2);
if (!id || !kubeconfigPath || !identity) throw new Error('usage: elected-process <lease> <kubeconfig> <identity>');
/** Passes log lines on to stderr, and reports the elector's observations of the holder on stdout. */
function reportObservations(line: string): void {
  process.stderr.write(line);
  const entry = JSON.parse(line) as { msg?: string; leader?: string };
  if (entry.msg === 'new leader observed') process.stdout.write(`observed ${entry.leader}\n`);
}

const mgr = await Manager.create({
  kubeconfig: { kubeconfigText: readFileSync(kubeconfigPath, 'utf8') },
  // Info at least, so that the elector's observations reach stdout; OPERANT_LOG_LEVEL=debug shows the election step by step.
  logger: createLogger({ format: 'json', level: process.env.OPERANT_LOG_LEVEL === 'debug' ? 'debug' : 'info', destination: { write: reportObservations } }),
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
