/**
 * Bundles the `operant` command (packages/cli/dist/main.js, built by tsc) into
 * one CommonJS script, packages/cli/dist/bundle/operant.cjs, instead of some
 * 150 ESM files, so that `operant server` starts without resolving and reading
 * each file; then records a V8 code cache of it (operant.cjs.cache) so that
 * the next starts skip compiling it. Run by the root `prepare` and `build`
 * scripts after tsc; the output is build output, never committed.
 *
 * Why CommonJS: Node 20 can hand V8 a code cache only for a script it compiles
 * through node:vm (ESM has no such door before Node 22's module.enableCompileCache),
 * and such a script has no loader for import(): the packages left outside the
 * bundle are loaded with require().
 * The bundle's modules stay lazily evaluated (esbuild wraps each dynamically
 * imported one), so a command still runs only the code it uses.
 *
 * A second, smaller bundle, operant-server.cjs (src/server-main.ts), holds
 * `operant server` alone, without commander, the other commands and the
 * simulated cluster: V8 reads and deserializes about half as much at each
 * start. The bin tries it first for `operant server`; it declines what it does
 * not read itself (help, errors, --nodes) and the full bundle runs that.
 *
 * Each code cache is made by running its bundle as users do (`operant
 * server`, in memory, on a scratch cache dir) and saving what V8 compiled by
 * then. V8 refuses a cache made by another V8 version or with other flags, and
 * the bin uses it only beside the exact bundle file it was made from
 * (stamp.json), so a stale or foreign cache costs a compile, never a wrong
 * program. A failure to make it is a warning: the bundle runs without it.
 *
 * The bin (packages/cli/bin/operant.js) runs the bundle only while it is as new
 * as the tsc output it was made from (stamp.json), so that a `tsc -b` alone never
 * leaves `operant` running stale code.
 */
import { build, transform } from 'esbuild';
import ts from 'typescript';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const packagesDir = join(root, 'packages');
const outdir = join(packagesDir, 'cli', 'dist', 'bundle');
const cacheFile = join(outdir, 'operant.cjs.cache');
const serverFile = 'operant-server.cjs';
const serverCacheFile = join(outdir, `${serverFile}.cache`);
const bin = join(packagesDir, 'cli', 'bin', 'operant.js');

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
    // The server's and the runtime's metrics take prom-client's classes from their own modules (their
    // metrics/prom-client.js requires them, which esbuild does not follow): the shims bundle the same ones.
    b.onResolve({ filter: /^\.\/prom-client\.js$/ }, (args) => {
      for (const [pkg, shim] of [['apiserver', 'prom-client-core.mjs'], ['runtime', 'prom-client-runtime.mjs']]) {
        if (args.importer.startsWith(join(packagesDir, pkg, 'dist', 'metrics') + sep)) return { path: join(root, 'scripts', 'bundle-shims', shim) };
      }
      return undefined;
    });
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
      // The URL is made when first read (most modules read it only to find a data file when they need it).
      const { code } = await transform(text, { loader: 'js', format: 'esm', define: { 'import.meta.url': '__moduleUrl.href' } });
      const fromBundle = relative(outdir, args.path).split(sep).join('/');
      return { contents: `const __moduleUrl = { get href() { return new URL(${JSON.stringify(fromBundle)}, __bundleUrl()).href; } };\n${code}`, loader: 'js' };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

/**
 * Bundles `entry` into dist/bundle/`file`; returns the metafile and whether the text is ASCII.
 * `deferred`: packages left out of the bundle that only a path the entry never takes would load.
 */
async function bundleOf(entry, file, deferred = []) {
  const outfile = join(outdir, file);
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // import() of a package left outside becomes a require(): a script compiled through node:vm has no
    // module loader for import() (every such package offers CommonJS; the check below keeps it so).
    supported: { 'dynamic-import': false },
    // The sources are ES modules, which are strict: so is the script made of them.
    banner: { js: `"use strict";\nvar __bundleHref;\nfunction __bundleUrl() { return __bundleHref ??= require("node:url").pathToFileURL(__filename).href; }` },
    plugins: [moduleUrlPlugin, ...(deferred.length ? [leaveOut(deferred)] : [])],
    metafile: true,
    logLevel: 'warning',
  });
  const dynamicImports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.kind === 'dynamic-import' && !deferred.includes(i.path)).map((i) => i.path));
  if (dynamicImports.length) throw new Error(`the bundle must not import() at run time (node:vm offers no loader for it): ${dynamicImports.join(', ')}`);
  // The bin compiles the bundle as a function body (node:vm): no hashbang line.
  const text = asAscii(readFileSync(outfile, 'utf8').replace(/^#!.*\n/, ''));
  // A package left out may be loaded only where the sources import() it (esbuild writes a require() in a
  // promise), never as the bundle loads: that path must stay one the entry leaves to the full bundle.
  for (const name of deferred) {
    const loads = text.split(`require(${JSON.stringify(name)})`).length - 1;
    const lazy = text.split(`Promise.resolve().then(() => __toESM(require(${JSON.stringify(name)})`).length - 1;
    if (loads !== lazy) throw new Error(`${file} requires ${name} outside an import(): it must leave that to the full bundle`);
  }
  writeFileSync(outfile, text);
  // An ASCII bundle is read as latin1, which Node copies into a string as it is, without UTF-8 decoding.
  return { metafile: result.metafile, encoding: /[^\x00-\x7f]/.test(text) ? 'utf8' : 'latin1' };
}

/** Leaves `packages` out of a bundle: their import() stays one (a require() at run time, never reached). */
function leaveOut(packages) {
  return {
    name: 'leave-out',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => (packages.includes(args.path) ? { path: args.path, external: true } : undefined));
    },
  };
}

// Every command; then `operant server`'s own (src/server-main.ts), without commander and the other
// commands, and without the simulated cluster of --nodes, which server-main leaves to the full bundle.
const full = await bundleOf(join(packagesDir, 'cli', 'dist', 'main.js'), 'operant.cjs');
const server = await bundleOf(join(packagesDir, 'cli', 'dist', 'server-main.js'), serverFile, ['@operant/controllers']);

// The tsc outputs the bundles were made from, by their build-info files' times.
const inputs = {};
const workspaces = new Set(
  [full, server].flatMap((b) => Object.keys(b.metafile.inputs)).filter((p) => p.startsWith('packages/')).map((p) => p.split('/')[1]),
);
for (const name of workspaces) {
  const info = join(packagesDir, name, 'tsconfig.tsbuildinfo');
  inputs[relative(outdir, info).split(sep).join('/')] = statSync(info).mtimeMs;
}
const codeCaches = { full: undefined, server: undefined };
const writeStamp = () =>
  writeFileSync(
    join(outdir, 'stamp.json'),
    `${JSON.stringify({ inputs, encoding: full.encoding, codeCache: codeCaches.full, server: { file: serverFile, encoding: server.encoding, codeCache: codeCaches.server } }, null, 2)}\n`,
  );
writeStamp();

try {
  await recordCodeCaches();
  for (const [which, file] of [['full', 'operant.cjs'], ['server', serverFile]]) {
    const { size, mtimeMs } = statSync(join(outdir, file));
    codeCaches[which] = { file: `${file}.cache`, source: { size, mtimeMs } };
  }
  writeStamp();
} catch (e) {
  rmSync(cacheFile, { force: true });
  rmSync(serverCacheFile, { force: true });
  console.warn(`warning: no code cache for the operant bundles (they run without one, compiling at each start): ${e instanceof Error ? e.message : String(e)}`);
}

/**
 * Runs `operant server` three times on a scratch cache dir: the first makes the serving
 * certificate, so that the others take the usual path; the second records the server
 * bundle's cache, the third the full bundle's (OPERANT_FULL_BUNDLE), each when it exits.
 */
async function recordCodeCaches() {
  const scratch = mkdtempSync(join(tmpdir(), 'operant-code-cache-'));
  try {
    for (const [record, fullBundle] of [[undefined, false], [serverCacheFile, false], [cacheFile, true]]) {
      const env = { ...process.env, XDG_CACHE_HOME: scratch };
      delete env.OPERANT_WRITE_CODE_CACHE;
      delete env.OPERANT_FULL_BUNDLE;
      if (record) env.OPERANT_WRITE_CODE_CACHE = record;
      if (fullBundle) env.OPERANT_FULL_BUNDLE = '1';
      await runServerOnce(env, join(scratch, 'kubeconfig'));
    }
    statSync(cacheFile);
    statSync(serverCacheFile);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function runServerOnce(env, kubeconfig) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'server', '--port', '0', '--kubeconfig', kubeconfig], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (/^ready /m.test(out)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (/^ready /m.test(out) && code === 0) resolve();
      else reject(new Error(`operant server ended (${signal ?? code}) ${/^ready /m.test(out) ? 'after' : 'before'} ready: ${err.trim()}`));
    });
  });
}

/**
 * The bundle with its few non-ASCII characters written as \uXXXX escapes, when each is where an
 * escape means the same: a regular expression, a string, an untagged template or a comment.
 * esbuild writes most text in ASCII but leaves some regular expressions and comments; one such
 * character makes Node read all 2.6 MB of the bundle into a two-byte string, several times slower
 * than an ASCII one, at every start. Anything else (a tagged template's raw text, a character after
 * a backslash) leaves the bundle as it is.
 */
function asAscii(text) {
  if (!/[^\x00-\x7f]/.test(text)) return text;
  const file = ts.createSourceFile('operant.cjs', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  // Names are left out: esbuild escapes them itself, and an astral letter's escape is \u{...}, not a pair.
  const escapable = new Set([ts.SyntaxKind.RegularExpressionLiteral, ts.SyntaxKind.StringLiteral]);
  const templates = new Set([ts.SyntaxKind.NoSubstitutionTemplateLiteral, ts.SyntaxKind.TemplateHead, ts.SyntaxKind.TemplateMiddle, ts.SyntaxKind.TemplateTail]);
  const tagged = (node) => {
    for (let n = node.parent; n; n = n.parent) {
      if (ts.isTaggedTemplateExpression(n)) return true;
      if (!ts.isTemplateSpan(n) && !ts.isTemplateExpression(n)) return false;
    }
    return false;
  };
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) continue;
    if (text[i - 1] === '\\') return text;
    const token = ts.getTokenAtPosition(file, i);
    const inComment = i < token.getStart(file) || ts.isJSDoc(token) || ts.isJSDoc(token.parent ?? token);
    if (inComment || escapable.has(token.kind) || (templates.has(token.kind) && !tagged(token))) continue;
    return text;
  }
  return text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

