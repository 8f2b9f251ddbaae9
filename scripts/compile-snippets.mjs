// Type-checks code snippets (TSDoc examples, README and guide blocks), each as a module of its
// own, in one TypeScript program. A snippet is a file that exists only in memory (or already on
// disk) at the path it is given, beside what it documents, so its relative and package imports
// resolve as a reader's file would. The one mechanism behind check-examples.mjs and the tests
// that keep the READMEs and the book compiling.
import ts from 'typescript';

/** The settings of a reader's project: strict, ESM under NodeNext, `import type` for types. */
export const snippetCompilerOptions = {
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

/**
 * Compiles the snippets and returns the diagnostics of each (not of the files they import).
 * `options` are laid over {@link snippetCompilerOptions}; `extraRoots` are further files of the
 * program (declarations the snippets may rely on, sources they sit among).
 */
export function compileSnippets(snippets, { options = {}, extraRoots = [] } = {}) {
  const compilerOptions = { ...snippetCompilerOptions, ...options };
  const byPath = new Map(snippets.map((s) => [s.path, s]));
  const host = ts.createCompilerHost(compilerOptions);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (path) => byPath.get(path)?.text ?? readFile(path);
  host.fileExists = (path) => byPath.has(path) || fileExists(path);
  host.getSourceFile = (path, languageVersion, onError, shouldCreate) => {
    const snippet = byPath.get(path);
    return snippet ? ts.createSourceFile(path, snippet.text, languageVersion, true) : getSourceFile(path, languageVersion, onError, shouldCreate);
  };
  const program = ts.createProgram({ rootNames: [...extraRoots, ...byPath.keys()], options: compilerOptions, host });
  const found = [];
  for (const snippet of snippets) {
    const source = program.getSourceFile(snippet.path);
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      found.push({ snippet, line, code: d.code, message: (separator) => ts.flattenDiagnosticMessageText(d.messageText, separator) });
    }
  }
  return found;
}
