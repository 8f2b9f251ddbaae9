/**
 * `operant server` without commander: the entry of the server's own bundle
 * (scripts/bundle-cli.mjs), which the bin tries first for `operant server`,
 * so that a start loads neither commander nor the other commands. It takes a
 * command line made only of the server's options, each with its value
 * (`--port 0`, `--port=0`), which commander reads the same way, and without
 * `--nodes` (the simulated cluster is in the full bundle). Anything else
 * (help, an unknown option, a missing value, an argument) it declines, and the
 * bin runs the full command, whose commander answers it as always.
 */
import { runServer, type ServerFlags } from './commands/server.js';
import { optionName, serverOptions } from './commands/server-options.js';
import { exitWithError } from './exit-with-error.js';

const byName = new Map(serverOptions.map((option) => [optionName(option), option]));

/** The flags of `operant server <args>` as commander parses them; undefined for a command line left to commander. */
export function parseServerArgs(args: readonly string[]): ServerFlags | undefined {
  const flags: Partial<Record<keyof ServerFlags, string>> = {};
  for (const option of serverOptions) if (option.default !== undefined) flags[option.key] = option.default;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    const option = byName.get(eq > 0 ? arg.slice(0, eq) : arg);
    if (!option || option.key === 'nodes') return undefined;
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    // A value that commander might take for an option, or none at all: its to judge.
    if (value === undefined || value === '' || value.startsWith('-')) return undefined;
    // As in commander, the last of a repeated option wins.
    flags[option.key] = value;
  }
  return flags as ServerFlags;
}

/**
 * Runs `operant server` with `args` (the arguments after `server`), unless
 * they are commander's to read (see {@link parseServerArgs}): then returns false.
 */
export function serverMain(args: readonly string[]): boolean {
  const flags = parseServerArgs(args);
  if (!flags) return false;
  runServer(flags).catch(exitWithError);
  return true;
}
