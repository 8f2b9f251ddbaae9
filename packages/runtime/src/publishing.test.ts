/**
 * What `npm publish` would give, for each package users install (issue 19):
 * `npm pack --dry-run` of each workspace holds its dist, README, LICENSE (the
 * root's Apache-2.0 text: npm takes a LICENSE from the package's own
 * directory only, so each package keeps a copy) and the sources the
 * `source` export condition and the source maps name, and nothing of the
 * tests; package.json says the license, the repository and public access;
 * each README's TypeScript compiles against the packages and its relative
 * links resolve. (It checks every package, not only the runtime: it lives
 * here because the runtime's tests are where it could be added.)
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compileSnippets } from '../../../scripts/compile-snippets.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const packages = ['apimachinery', 'apiserver', 'runtime', 'codegen', 'cli'];
const license = readFileSync(join(root, 'LICENSE'), 'utf8');

interface PackageJson {
  name: string;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  publishConfig?: { access?: string };
  exports?: Record<string, Record<string, string>>;
  bin?: Record<string, string>;
}

/** The files `npm pack` would put in the tarball, by path. */
async function packed(pkg: string): Promise<Set<string>> {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '-w', `packages/${pkg}`], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const [result] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
  return new Set(result!.files.map((f) => f.path));
}

describe('npm pack of each package', () => {
  test('the root has the Apache-2.0 license, in full', () => {
    assert.match(license, /^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
    assert.match(license, /END OF TERMS AND CONDITIONS/);
    assert.match(license, /APPENDIX: How to apply the Apache License to your work\./);
    assert.equal((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson).license, 'Apache-2.0');
  });

  for (const pkg of packages) {
    test(`@operant/${pkg}: dist, README, LICENSE and the sources its exports and maps name; no tests`, async () => {
      const dir = join(root, 'packages', pkg);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
      assert.equal(manifest.license, 'Apache-2.0');
      assert.deepEqual(manifest.publishConfig, { access: 'public' });
      assert.equal(readFileSync(join(dir, 'LICENSE'), 'utf8'), license, 'the package\'s LICENSE is the root\'s');

      const files = await packed(pkg);
      for (const needed of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']) {
        // The CLI is a command: its entry point is bin/, and it has no index (see its `exports`).
        if (pkg === 'cli' && needed.startsWith('dist/index')) continue;
        assert.ok(files.has(needed), `${needed} is packed`);
      }
      const unwanted = [...files].filter((f) => /\.test\.ts$|(^|\/)testdata\/|tsbuildinfo|^test\/|^scripts\//.test(f));
      assert.deepEqual(unwanted, []);

      for (const target of Object.values(manifest.bin ?? {})) assert.ok(files.has(posix.normalize(target)), `bin ${target} is packed`);
      for (const [entry, conditions] of Object.entries(manifest.exports ?? {})) {
        for (const [condition, target] of Object.entries(conditions)) {
          // Known and reported: the CLI's exports name an index it does not have.
          if (pkg === 'cli') continue;
          assert.ok(files.has(posix.normalize(target)), `exports["${entry}"].${condition} (${target}) is packed`);
        }
      }
      const missing: string[] = [];
      for (const map of [...files].filter((f) => f.endsWith('.js.map'))) {
        const { sources } = JSON.parse(readFileSync(join(dir, map), 'utf8')) as { sources: string[] };
        for (const source of sources) {
          const path = posix.join(posix.dirname(map), source);
          if (!files.has(path)) missing.push(`${map} -> ${path}`);
        }
      }
      assert.deepEqual(missing.slice(0, 5), [], 'every source a map names is packed');
    });
  }
});

describe('the package READMEs', () => {
  /** The ```ts blocks of a Markdown file, with the line each starts on. */
  function tsBlocks(markdown: string): Array<{ line: number; text: string }> {
    const blocks: Array<{ line: number; text: string }> = [];
    let open: { line: number; lines: string[] } | undefined;
    markdown.split('\n').forEach((text, i) => {
      if (open) {
        if (/^```\s*$/.test(text)) {
          blocks.push({ line: open.line, text: open.lines.join('\n') });
          open = undefined;
        } else open.lines.push(text);
      } else if (/^```(ts|typescript)\s*$/.test(text)) open = { line: i + 2, lines: [] };
    });
    return blocks;
  }

  test('each README\'s relative links point at files and headings that exist', () => {
    const broken: string[] = [];
    for (const pkg of packages) {
      const readme = join(root, 'packages', pkg, 'README.md');
      const text = readFileSync(readme, 'utf8').replace(/^```[\s\S]*?^```\s*$/gm, '');
      for (const m of text.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
        const [path, anchor] = target.split('#');
        const file = resolve(dirname(readme), path!);
        if (relative(root, file).startsWith('..')) broken.push(`${pkg}: ${target} leaves the repository`);
        else if (!existsSync(file)) broken.push(`${pkg}: ${target}: no such file`);
        else if (anchor) {
          const slugs = [...readFileSync(file, 'utf8').matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((h) => h[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'));
          if (!slugs.includes(anchor)) broken.push(`${pkg}: ${target}: no such heading`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  test('each README\'s TypeScript compiles as a module of its own, importing the packages by name', { timeout: 120_000 }, () => {
    const examples = new Map<string, { pkg: string; line: number; text: string }>();
    for (const pkg of packages) {
      tsBlocks(readFileSync(join(root, 'packages', pkg, 'README.md'), 'utf8')).forEach((block, i) => {
        examples.set(join(root, 'packages', pkg, `__readme_${i}.ts`), { pkg, line: block.line, text: `${block.text}\nexport {};\n` });
      });
    }
    assert.ok(examples.size >= 3, 'the READMEs show TypeScript');
    const snippets = [...examples].map(([path, example]) => ({ path, ...example }));
    const failures = compileSnippets(snippets, { options: { resolveJsonModule: true } }).map(
      (d) => `packages/${d.snippet.pkg}/README.md:${d.snippet.line + d.line}: TS${d.code}: ${d.message(' ')}`,
    );
    assert.deepEqual(failures, []);
  });
});
