// Type-checks every ```ts block in the @example sections of the packages' TSDoc
// (packages/*/src, tests and test fixtures aside), so that an example cannot call
// what does not exist. Each example is its own module and imports what it uses,
// as a reader's file would: `@operant/runtime` for the public API (resolved to
// the workspace packages' sources), or a relative path for an internal helper;
// the few values an example may take for granted (a client, a manager, an abort
// signal...) are declared in examples-context.d.ts. The examples exist only in
// memory, each as a file beside the source it documents, and are checked in one
// program. Exits 1 with `file:line` diagnostics when one does not compile.
//
//   node scripts/check-examples.mjs                   check every package's examples
//   node scripts/check-examples.mjs packages/runtime  check one package's
//   node scripts/check-examples.mjs --print           also print each example as checked
import ts from 'typescript';
import { compileSnippets } from './compile-snippets.mjs';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const started = performance.now();
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const contextFile = join(root, 'scripts', 'examples-context.d.ts');

/** The TypeScript files whose TSDoc is public: sources, not tests, fixtures or declarations. */
function sourceFiles(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist' && entry.name !== 'testdata') sourceFiles(path, out);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) {
      out.push(path);
    }
  }
  return out;
}

/**
 * The ```ts blocks of the @example sections in a file's TSDoc, each with the
 * line of the file its first line comes from. The comments are found through
 * the parsed file (the leading comments of every node), so that a string or a
 * template that looks like a comment is not taken for one.
 */
function examplesIn(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const comments = new Map();
  const visit = (node) => {
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) {
      if (range.kind === ts.SyntaxKind.MultiLineCommentTrivia && text.startsWith('/**', range.pos)) comments.set(range.pos, range);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const found = [];
  for (const range of [...comments.values()].sort((a, b) => a.pos - b.pos)) {
    const firstLine = source.getLineAndCharacterOfPosition(range.pos).line + 1;
    let inExample = false;
    let block;
    text.slice(range.pos, range.end).split('\n').forEach((raw, i) => {
      const line = raw.replace(/^\s*(\/\*\*|\*\/|\*)? ?/, '').replace(/\s*\*\/$/, '');
      if (block) {
        if (/^```\s*$/.test(line)) {
          found.push(block);
          block = undefined;
        } else block.lines.push(line);
      } else if (/^@\w+/.test(line)) {
        inExample = line.startsWith('@example');
      } else if (inExample && /^```(ts|typescript)\s*$/.test(line)) {
        block = { line: firstLine + i + 1, lines: [] };
      }
    });
    // A fence left open runs to the end of the comment: checked all the same, so it shows.
    if (block) found.push(block);
  }
  return found;
}

const packagesDir = join(root, 'packages');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--')).map((a) => resolve(a));
const examples = [];
for (const pkg of readdirSync(packagesDir, { withFileTypes: true })) {
  const src = join(packagesDir, pkg.name, 'src');
  if (!pkg.isDirectory() || !existsSync(src)) continue;
  if (only.length > 0 && !only.includes(join(packagesDir, pkg.name))) continue;
  for (const file of sourceFiles(src)) {
    for (const block of examplesIn(file, readFileSync(file, 'utf8'))) {
      const path = join(dirname(file), `__example_${examples.length}.ts`);
      // `export {}` makes a block without imports a module too, so examples never share names.
      examples.push({ path, file, line: block.line, text: `${block.lines.join('\n')}\nexport {};\n` });
    }
  }
}

// esModuleInterop and JSON modules: what a project that copies the example would have.
const options = { esModuleInterop: true, resolveJsonModule: true };
// The declarations of the values examples take for granted are checked with them.
const context = { path: contextFile, text: readFileSync(contextFile, 'utf8'), context: true };
const failures = [];
for (const d of compileSnippets([context, ...examples], { options })) {
  const message = d.message('\n    ');
  if (d.snippet.context) failures.push(`${relative(root, contextFile)}: error TS${d.code}: ${message}`);
  else failures.push(`${relative(root, d.snippet.file)}:${d.snippet.line + d.line}: error TS${d.code}: ${message}`);
}
if (process.argv.includes('--print')) for (const e of examples) console.log(`--- ${relative(root, e.file)}:${e.line}\n${e.text}`);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (failures.length > 0) {
  console.error(failures.join('\n'));
  console.error(`check-examples: ${failures.length} error(s) in ${examples.length} examples (${seconds} s)`);
  process.exit(1);
}
console.log(`check-examples: ${examples.length} examples compile (${seconds} s)`);
