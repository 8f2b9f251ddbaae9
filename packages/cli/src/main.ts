#!/usr/bin/env node
/**
 * The `operant` command. `operant server` runs the embedded API server;
 * `operant start` is what `npm start` runs.
 */
import { Command } from 'commander';
import { runServer } from './commands/server.js';
import { runStart } from './commands/start.js';

const program = new Command('operant')
  .description('Operant: Kubernetes operators in TypeScript, with an embedded API server')
  .version('0.1.0', '-V, --cli-version', 'print the operant version');

program
  .command('server')
  .description('run the embedded Kubernetes API server')
  .option('--port <port>', 'port to listen on (0 = any free port)', '0')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--data-dir <dir>', 'directory for durable data (omitted: in memory)')
  .option('--kubeconfig <file>', 'write an admin kubeconfig here once ready')
  .action(async (opts: { port: string; host: string; dataDir?: string; kubeconfig?: string }) => {
    await runServer(opts);
  });

program
  .command('start')
  .description('start the embedded server with data under .operant/ (what `npm start` runs)')
  .option('--dir <dir>', 'where to keep data and the kubeconfig', '.operant')
  .action(async (opts: { dir: string }) => {
    await runStart(opts);
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
