#!/usr/bin/env node
/**
 * The `operant` command (its commands are defined in program.ts).
 */
import { buildProgram } from './program.js';
import { exitWithError } from './exit-with-error.js';

buildProgram().parseAsync(process.argv).catch(exitWithError);
