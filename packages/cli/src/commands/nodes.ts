/**
 * `operant nodes`: simulated nodes in a process of their own that join a
 * running cluster, as real nodes do; killing the process (even with
 * SIGKILL) is then a node that dies: its Lease stops being renewed and the
 * cluster's node lifecycle controller takes it from there.
 */
import { clockOf, parseTimeAnchor, parseTimeScale } from './server.js';

export interface NodesFlags {
  kubeconfig: string;
  count: string;
  prefix: string;
  firstIndex: string;
  timeScale: string;
  timeAnchor?: string;
}

function positive(flag: string, text: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > 1000) throw new Error(`--${flag}: invalid number ${JSON.stringify(text)}: must be an integer from ${min} to 1000`);
  return Number(text);
}

export async function runNodes(flags: NodesFlags): Promise<void> {
  const count = positive('count', flags.count, 1);
  const firstIndex = positive('first-index', flags.firstIndex, 1);
  const timeScale = parseTimeScale(flags.timeScale);
  if (flags.timeAnchor !== undefined) parseTimeAnchor(flags.timeAnchor);
  if (!/^[a-z0-9]([-a-z0-9.]*)?$/.test(flags.prefix)) throw new Error(`--prefix: invalid prefix ${JSON.stringify(flags.prefix)}: node names are lower case letters, digits, '-' and '.'`);
  const { startSimulatedNodes } = await import('@operant/controllers');
  const nodes = await startSimulatedNodes({
    kubeconfig: { path: flags.kubeconfig },
    nodes: count,
    firstIndex,
    shape: { namePrefix: flags.prefix },
    clock: await clockOf(timeScale, flags.timeAnchor),
  });
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void nodes.stop().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`ready ${nodes.nodes.join(' ')}\n`);
}
