/**
 * The README's TypeScript compiles against the packages as a user's test
 * file would import them (its ```ts blocks, each a module beside this file).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));

test('the README examples compile', () => {
  const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  assert.ok(blocks.length > 0);
  const files = new Map(blocks.map((text, i) => [join(here, `__readme_${i}.ts`), `${text}\nexport {};\n`]));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['source'],
    types: ['node'],
    strict: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const { readFile, fileExists, getSourceFile } = host;
  host.readFile = (p) => files.get(p) ?? readFile.call(host, p);
  host.fileExists = (p) => files.has(p) || fileExists.call(host, p);
  host.getSourceFile = (p, v, onError, create) => (files.has(p) ? ts.createSourceFile(p, files.get(p)!, v, true) : getSourceFile.call(host, p, v, onError, create));
  const program = ts.createProgram({ rootNames: [...files.keys()], options, host });
  const errors = [...files.keys()].flatMap((f) => {
    const source = program.getSourceFile(f)!;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => {
      const { line } = source.getLineAndCharacterOfPosition(d.start ?? 0);
      return `README block ${f.match(/__readme_(\d+)/)![1]} line ${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
  });
  assert.deepEqual(errors, []);
});
