/**
 * Bundles the `operant` command (packages/cli/dist/main.js, built by tsc) into
 * packages/cli/dist/bundle/: one chunk per command instead of some 150 ESM files,
 * so that `operant server` starts without resolving and reading each file (about
 * 100 ms of its start-up). Run by the root `prepare` and `build` scripts after
 * tsc; the output is build output, never committed.
 *
 * The bin (packages/cli/bin/operant.js) runs the bundle only while it is as new
 * as the tsc output it was made from (stamp.json), so that a `tsc -b` alone never
 * leaves `operant` running stale code.
 */
import { build, transform } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const packagesDir = join(root, 'packages');
const outdir = join(packagesDir, 'cli', 'dist', 'bundle');

/**
 * Third-party packages bundled with the workspace's own: plain JavaScript that
 * never locates files next to itself. Every other package stays a separate
 * import from node_modules (native modules, typescript, pino's worker threads,
 * @peculiar/x509, which loads only when a certificate must be made).
 */
const bundled = new Set(['commander', 'prom-client', 'bintrees', 'tdigest', '@opentelemetry/api', '@marcbachmann/cel-js', 're2js']);

const packageOf = (specifier) => {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
};

/** Workspace modules find their data files (JSON) with import.meta.url: point it at the module's own file. */
const moduleUrlPlugin = {
  name: 'workspace-module-url',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = packageOf(args.path);
      if (name.startsWith('@operant/') || bundled.has(name) || args.path.startsWith('node:')) return undefined;
      return { path: args.path, external: true };
    });
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(packagesDir + sep)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      // A define replaces the expression in code only, not in strings (the scaffold's templates
      // write import.meta.url into generated files); the bundler renames the per-module constant.
      const { code } = await transform(text, { loader: 'js', format: 'esm', define: { 'import.meta.url': '__moduleUrl' } });
      const fromBundle = relative(outdir, args.path).split(sep).join('/');
      return { contents: `const __moduleUrl = new URL(${JSON.stringify(fromBundle)}, import.meta.url).href;\n${code}`, loader: 'js' };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const result = await build({
  entryPoints: [join(packagesDir, 'cli', 'dist', 'main.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Bundled CommonJS packages require Node's built-in modules.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  plugins: [moduleUrlPlugin],
  metafile: true,
  logLevel: 'warning',
});

// The tsc outputs the bundle was made from, by their build-info files' times.
const inputs = {};
const workspaces = new Set(Object.keys(result.metafile.inputs).filter((p) => p.startsWith('packages/')).map((p) => p.split('/')[1]));
for (const name of workspaces) {
  const info = join(packagesDir, name, 'tsconfig.tsbuildinfo');
  inputs[relative(outdir, info).split(sep).join('/')] = statSync(info).mtimeMs;
}
writeFileSync(join(outdir, 'stamp.json'), `${JSON.stringify({ inputs }, null, 2)}\n`);
