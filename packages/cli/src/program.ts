/**
 * The `operant` command's definition: every command, flag and help text, in
 * one place, so that main.ts runs it and the CLI reference is generated from
 * it (scripts/write-cli-reference.ts).
 */
import { Command } from 'commander';
import type { GenerateFlags } from './commands/generate.js';
import type { ServerFlags } from './commands/server.js';
import { serverOptions } from './commands/server-options.js';

// Commands are loaded when they run: the server and the generator each take
// hundreds of milliseconds to import, which no other command should pay.
const generator = (): Promise<typeof import('./commands/generate.js')> => import('./commands/generate.js');

/** A fresh `operant` program. */
export function buildProgram(): Command {
  const program = new Command('operant')
    .description('Operant: Kubernetes operators in TypeScript, with an embedded API server')
    .version('0.1.0', '-V, --cli-version', 'print the operant version')
    // `generate` and its subcommands share option names: options belong to the command they follow.
    .enablePositionalOptions();

  const server = program.command('server').description('run the embedded Kubernetes API server');
  for (const option of serverOptions) server.option(option.flags, option.description, option.default);
  server.action(async (opts: ServerFlags) => {
    await (await import('./commands/server.js')).runServer(opts);
  });

  program
    .command('nodes')
    .description('run simulated nodes (their kubelets alone) that join a running cluster, e.g. one of `operant server --nodes`')
    .requiredOption('--kubeconfig <file>', 'the cluster to join')
    .option('--count <n>', 'how many nodes', '1')
    .option('--prefix <prefix>', 'node names are this prefix and a number', 'node-')
    .option('--first-index <n>', 'the number of the first node (addresses follow it: keep it apart from the other nodes\')', '1')
    .option('--time-scale <factor>', "the cluster's clock runs this many times faster than the wall; the same as the server's", '1')
    .option('--time-anchor <ms>', "with --time-scale: the server's --time-anchor")
    .action(async (opts: { kubeconfig: string; count: string; prefix: string; firstIndex: string; timeScale: string; timeAnchor?: string }) => {
      await (await import('./commands/nodes.js')).runNodes(opts);
    });

  program
    .command('start')
    .description('start the embedded server with data under .operant/, and print kubectl commands to try')
    .option('--dir <dir>', 'where to keep data and the kubeconfig', '.operant')
    .action(async (opts: { dir: string }) => {
      await (await import('./commands/start.js')).runStart(opts);
    });

  const collect = (value: string, previous: string[]): string[] => [...previous, value];

  const generate = program
    .command('generate')
    .description('write CRDs, RBAC and webhook manifests from TypeScript types with Kubebuilder markers (controller-gen)')
    .enablePositionalOptions()
    .option('--paths <glob...>', 'source files to read (default: src/**/*.ts)', collect, [])
    .option('--role-name <name>', 'the name of the generated ClusterRole', 'manager-role')
    .option('--max-description-length <n>', 'cut descriptions longer than this (0: none)')
    .action(async (opts: GenerateFlags) => (await generator()).runGenerateAll(opts));

  type GenerateRun = 'runGenerateCrd' | 'runGenerateRbac' | 'runGenerateWebhook';
  const generateCommand = (name: string, what: string, run: GenerateRun, extra?: (c: Command) => Command): void => {
    let c = generate
      .command(name)
      .description(what)
      .requiredOption('--paths <glob...>', 'source files to read, e.g. src/**/*.ts', collect, [])
      .option('--output-dir <dir>', 'where to write');
    if (extra) c = extra(c);
    c.action(async (opts: GenerateFlags) => (await generator())[run](opts));
  };
  generateCommand('crd', 'write one <group>_<plural>.yaml per CustomResourceDefinition', 'runGenerateCrd', (c) =>
    c.option('--max-description-length <n>', 'cut descriptions longer than this (0: none)'),
  );
  generateCommand('rbac', 'write role.yaml from the +kubebuilder:rbac markers', 'runGenerateRbac', (c) =>
    c.option('--role-name <name>', 'the name of the generated ClusterRole', 'manager-role'),
  );
  generateCommand('webhook', 'write manifests.yaml from the +kubebuilder:webhook markers', 'runGenerateWebhook');

  const scaffold = (): Promise<typeof import('./commands/scaffold.js')> => import('./commands/scaffold.js');

  program
    .command('init')
    .description('create a new operator project in the current directory (kubebuilder init)')
    .requiredOption('--domain <domain>', 'the domain of the API groups, e.g. kruise.io')
    .option('--repo <name>', 'the project\'s module name, recorded in PROJECT (default <domain>/<project-name>)')
    .option('--project-name <name>', 'the project name (default: the directory name)')
    .option('--owner <owner>', 'the owner, named in the README')
    .action(async (opts) => (await scaffold()).runInit(opts));

  const create = program.command('create').description('scaffold an API or a webhook (kubebuilder create)');
  create
    .command('api')
    .description('scaffold a kind: types, controller, test, sample and config (kubebuilder create api)')
    .requiredOption('--group <group>', 'the API group, e.g. apps (core for the core group)')
    .requiredOption('--version <version>', 'the API version, e.g. v1alpha1')
    .requiredOption('--kind <kind>', 'the kind, e.g. SidecarSet')
    .option('--namespaced [bool]', 'namespaced (true) or cluster-scoped (false)')
    .option('--namespace [bool]', 'read as --namespaced, with a warning (a common misspelling)')
    .option('--resource [bool]', 'scaffold the types and CRD (false: a controller for a built-in kind)')
    .option('--controller [bool]', 'scaffold a controller')
    .option('--plural <plural>', 'the resource\'s plural name (default: the kind\'s English plural)')
    .action(async (opts) => (await scaffold()).runCreateApi(opts));

  create
    .command('webhook')
    .description('scaffold a defaulting and/or validating webhook for a kind (kubebuilder create webhook)')
    .requiredOption('--group <group>', 'the API group (core for Pods and the like)')
    .requiredOption('--version <version>', 'the API version')
    .requiredOption('--kind <kind>', 'the kind')
    .option('--defaulting', 'a mutating webhook that sets defaults')
    .option('--programmatic-validation', 'a validating webhook')
    .option('--conversion', 'a conversion webhook')
    .option('--plural <plural>', 'the resource\'s plural name')
    .action(async (opts) => (await scaffold()).runCreateWebhook(opts));

  program
    .command('convert')
    .description('rewrite apiextensions.k8s.io/v1beta1 CustomResourceDefinitions as v1 (as the old kubectl convert did)')
    .requiredOption('-f, --filename <file>', 'the manifest to convert (- for standard input)')
    .action(async (opts: { filename: string }) => (await import('./commands/convert.js')).runConvert(opts));

  program
    .command('dev')
    .description('regenerate, install the CRDs and webhooks, and run the manager; again on every change in src/ (make run, and more)')
    .option('--kubeconfig <file>', 'the cluster to use (default: KUBECONFIG or ~/.kube/config; none: an embedded API server)')
    .option('--embedded', 'use an embedded API server even when a kubeconfig exists')
    .option('--no-watch', 'run once, without watching src/')
    .option('--nodes <n>', 'simulated nodes for an embedded server, with the workload controllers and a scheduler (0: a bare API server)', '3')
    .action(async (opts: { kubeconfig?: string; embedded?: boolean; watch: boolean; nodes: string }) => (await import('./commands/dev.js')).runDev(opts));

  program
    .command('chaos')
    .description('put a fault proxy with a seeded chaos schedule between an operator and its API server; print the timeline and a summary')
    .option('--kubeconfig <file>', 'the API server to forward to (default: KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use')
    .option('--listen <host:port>', 'where the proxy listens (port 0 = any free port; on every address, 0.0.0.0 or [::], its kubeconfig names loopback)', '127.0.0.1:0')
    .option('--plain-http', 'serve plain HTTP instead of HTTPS, for tests and local runs: cheaper per request; loopback only (127.0.0.1 or ::1), and only the token of its kubeconfig passes')
    .option('--write-kubeconfig <file>', 'where to write the proxy\'s kubeconfig, for the operator', '.operant/chaos-kubeconfig')
    .option('--seed <n>', 'the schedule\'s seed (default: a random one, printed); the same seed gives the same faults at the same offsets')
    .option('--duration <time>', 'how long the schedule lasts, e.g. 30s, 2m', '60s')
    .option('--faults <list>', 'faults to draw from, comma-separated kind[:option...]: latency[:ms], error[:500|503|504|429][:applied][:p=P], reset[:applied][:p=P], cut-watch, expire, drop-bookmarks, partition, and the cluster faults delete-pod, crash-container, node-not-ready, image-pull-failure [:label=value] (default: every kind but the cluster faults, which change the cluster)')
    .option('--verbs <list>', 'hit only these verbs (get, list, watch, create, update, patch, delete, deletecollection)')
    .option('--resources <list>', 'hit only these resources, e.g. deployments.apps,foos')
    .option('--namespaces <list>', 'hit only these namespaces')
    .option('--mean-gap <time>', 'mean time between two faults\' starts', '700ms')
    .option('--plan', 'print the schedule for the seed and exit, without proxying')
    .option('--exit', 'exit when the schedule is over, instead of forwarding without faults until interrupted')
    .action(async (opts) => (await import('./commands/chaos.js')).runChaos(opts));

  program
    .command('alpha')
    .description('kubebuilder\'s alpha commands: webhook')
    .command('webhook')
    .description('scaffold a mutating or validating webhook for given operations (kubebuilder alpha webhook)')
    .requiredOption('--group <group>', 'the API group (core for Pods and the like)')
    .requiredOption('--version <version>', 'the API version')
    .requiredOption('--kind <kind>', 'the kind')
    .requiredOption('--type <type>', 'mutating or validating')
    .requiredOption('--operations <ops>', 'create, update, delete, connect, comma-separated')
    .option('--plural <plural>', 'the resource\'s plural name')
    .action(async (opts) => (await scaffold()).runAlphaWebhook(opts));

  return program;
}
