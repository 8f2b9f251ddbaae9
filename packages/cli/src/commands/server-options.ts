/**
 * The options of `operant server`, in the order its help lists them: program.ts
 * defines the command from this table, and server-main.ts reads a command line
 * with it, so that both know the same options with the same defaults.
 */
import type { ServerFlags } from './server.js';

export interface ServerOption {
  /** As commander takes it: `--name <value>`. */
  flags: `--${string} <${string}>`;
  description: string;
  /** The key of the parsed flags (commander's camel case of the name). */
  key: keyof ServerFlags;
  default?: string;
}

export const serverOptions: readonly ServerOption[] = [
  { flags: '--port <port>', description: 'port to listen on (0 = any free port)', key: 'port', default: '0' },
  { flags: '--host <host>', description: 'address to listen on', key: 'host', default: '127.0.0.1' },
  { flags: '--data-dir <dir>', description: 'directory for durable data (omitted: in memory)', key: 'dataDir' },
  { flags: '--kubeconfig <file>', description: 'write an admin kubeconfig here once ready', key: 'kubeconfig' },
  { flags: '--nodes <n>', description: 'also run a simulated cluster: the workload controllers, a scheduler and n simulated nodes', key: 'nodes' },
  {
    flags: '--controllers <list>',
    description: "with --nodes: the controllers to run, as kube-controller-manager's flag ('*' all, '-name' not that one; e.g. '*,-deployment')",
    key: 'controllers',
    default: '*',
  },
  {
    flags: '--time-scale <factor>',
    description: "with --nodes: the simulated cluster's clock runs this many times faster than the wall (run times, grace periods, cron schedules)",
    key: 'timeScale',
    default: '1',
  },
  {
    flags: '--time-anchor <ms>',
    description: 'with --time-scale: the wall-clock instant (epoch ms) from which cluster time runs faster; give `operant nodes` the same one',
    key: 'timeAnchor',
  },
  {
    flags: '--etcd-compaction-interval <duration>',
    description: "how often the event history is compacted, as kube-apiserver's flag: watches and continued lists from before the previous compaction get 410 Expired (0: never)",
    key: 'etcdCompactionInterval',
    default: '5m0s',
  },
];

/** An option's name, `--port` of `--port <port>`. */
export function optionName(option: ServerOption): string {
  return option.flags.slice(0, option.flags.indexOf(' '));
}
