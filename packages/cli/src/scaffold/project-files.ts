/**
 * A scaffolding command's writes, staged in memory and written only when the
 * whole command has succeeded, so a refused command (a file that would be
 * overwritten, a kind that exists) leaves the project as it was.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** An error the user can act on; the CLI prints its message and exits 1. */
export class ScaffoldError extends Error {
  override name = 'ScaffoldError';
}

export class ProjectFiles {
  private readonly staged = new Map<string, string>();

  /** @param root the project directory; paths are relative to it, with `/`. */
  constructor(readonly root: string) {}

  /** The file's content: staged, else on disk, else undefined. */
  read(path: string): string | undefined {
    const staged = this.staged.get(path);
    if (staged !== undefined) return staged;
    const abs = join(this.root, path);
    return existsSync(abs) ? readFileSync(abs, 'utf8') : undefined;
  }

  exists(path: string): boolean {
    return this.read(path) !== undefined;
  }

  /** Creates a file; it is an error if it exists. */
  create(path: string, content: string): void {
    if (this.exists(path)) throw new ScaffoldError(`${path} already exists; refusing to overwrite it`);
    this.staged.set(path, content);
  }

  /** Rewrites an existing file (staged). */
  update(path: string, edit: (content: string) => string): void {
    const content = this.read(path);
    if (content === undefined) throw new ScaffoldError(`${path} is missing: is this an operant project (run operant init first)?`);
    this.staged.set(path, edit(content));
  }

  /** Creates or replaces a file. */
  put(path: string, content: string): void {
    this.staged.set(path, content);
  }

  /** The staged paths, in the order they were first staged. */
  paths(): string[] {
    return [...this.staged.keys()];
  }

  /** Writes every staged file. */
  commit(): string[] {
    for (const [path, content] of this.staged) {
      const abs = join(this.root, path);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    }
    return this.paths();
  }
}
