/** How `operant` ends on an error a command let through: `error: <message>` on stderr, exit code 1. */
export function exitWithError(err: unknown): never {
  console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
