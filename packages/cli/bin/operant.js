#!/usr/bin/env node
// The committed launcher of the `operant` command. npm links a workspace's bins before the
// root `prepare` script has built dist/, and skips a bin whose target does not exist yet, so
// the bin must point at a file that is in the repository, not at build output.
import '../dist/main.js';
