import type { CompilerOptions } from 'typescript';

/** A snippet to compile: its path (real or in memory) and, for one held in memory, its text. */
export interface Snippet {
  path: string;
  text: string;
}

/** One diagnostic of a snippet: its 0-based line in the snippet, the TS error code, and its message joined by `separator`. */
export interface SnippetDiagnostic<S extends Snippet> {
  snippet: S;
  line: number;
  code: number;
  message(separator: string): string;
}

export declare const snippetCompilerOptions: CompilerOptions;

export declare function compileSnippets<S extends Snippet>(
  snippets: readonly S[],
  settings?: { options?: CompilerOptions; extraRoots?: readonly string[] },
): SnippetDiagnostic<S>[];
