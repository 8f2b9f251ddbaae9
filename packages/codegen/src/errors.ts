/**
 * Generator errors carry the position of what caused them, printed as
 * `file:line:col: message` so editors and terminals can jump to it.
 */
export class CodegenError extends Error {
  constructor(
    readonly detail: string,
    readonly file: string,
    readonly line: number,
    readonly col: number,
  ) {
    super(`${file}:${line}:${col}: ${detail}`);
    this.name = 'CodegenError';
  }
}

/** Where something was declared, for later error messages. */
export interface SourcePosition {
  file: string;
  line: number;
  col: number;
}

/** An error at a known position. */
export function errorAt(pos: SourcePosition, message: string): CodegenError {
  return new CodegenError(message, pos.file, pos.line, pos.col);
}
