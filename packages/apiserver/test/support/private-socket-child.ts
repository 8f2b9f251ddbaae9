/**
 * A server with a private socket in a process of its own, for the tests of
 * what a process leaves behind: it prints `socket <path>`, then, when stdin
 * says `exit`, leaves by process.exit without stopping the server (as an
 * uncaught error would); otherwise it waits to be killed.
 */
import { createInterface } from 'node:readline';
import { startApiServer } from '../../src/index.js';

const server = await startApiServer({ port: 0, privateSocket: true });
process.stdout.write(`socket ${server.socketPath}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'exit') process.exit(0);
}
