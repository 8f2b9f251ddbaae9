#!/usr/bin/env node
/**
 * The `operant` command. `operant server` runs the embedded API server;
 * `operant start` is what `npm start` runs.
 */
import { Command } from 'commander';
import type { GenerateFlags } from './commands/generate.js';

// Commands are loaded when they run: the server and the generator each take
// hundreds of milliseconds to import, which no other command should pay.
const generator = (): Promise<typeof import('./commands/generate.js')> => import('./commands/generate.js');

const program = new Command('operant')
  .description('Operant: Kubernetes operators in TypeScript, with an embedded API server')
  .version('0.1.0', '-V, --cli-version', 'print the operant version')
  // `generate` and its subcommands share option names: options belong to the command they follow.
  .enablePositionalOptions();

program
  .command('server')
  .description('run the embedded Kubernetes API server')
  .option('--port <port>', 'port to listen on (0 = any free port)', '0')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--data-dir <dir>', 'directory for durable data (omitted: in memory)')
  .option('--kubeconfig <file>', 'write an admin kubeconfig here once ready')
  .action(async (opts: { port: string; host: string; dataDir?: string; kubeconfig?: string }) => {
    await (await import('./commands/server.js')).runServer(opts);
  });

program
  .command('start')
  .description('start the embedded server with data under .operant/ (what `npm start` runs)')
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

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
