/**
 * The user documentation in docs/ stays true to the product:
 * - docs/cli.md is what scripts/write-cli-reference.ts renders from the
 *   program's definition, so the CLI reference cannot go stale;
 * - every relative link points at a file (and a heading) that exists, and no
 *   page points outside the repository;
 * - the TypeScript of the guides compiles against @operant/runtime as a module
 *   of a scaffolded project, and the types it shows generate;
 * - the quick start works: each command of its ```sh blocks runs as written,
 *   in order, in a fresh directory outside the repository, with the real npm,
 *   CLI and kubectl. The page's placeholders are substituted as a user would:
 *   `$OPERANT` is this checkout (set in the environment), `npm install` uses
 *   npm's cache (`--prefer-offline`), the API server the page starts "in a
 *   second terminal" runs in the background until the end, and `npm run dev`
 *   runs until its first "reconciled Guestbook" log line, then gets Ctrl-C.
 */
import { after, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileSnippets } from '../../../scripts/compile-snippets.mjs';
import { crdOutputs, kindsOutputs, loadProject, rbacOutput, webhookOutput, writeOutputs } from '@operant/codegen';
import { renderCliReference } from '../scripts/write-cli-reference.js';
import { hasKubectl } from './harness.js';
import { noKubectl } from './kubectl-support.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const docsDir = join(root, 'docs');
const docs = readdirSync(docsDir).filter((f) => f.endsWith('.md')).sort();
const read = (file: string): string => readFileSync(join(docsDir, file), 'utf8');

/** A fenced block of a Markdown file: its info string, its lines, and the file line of its first line. */
interface Block {
  info: string;
  lines: string[];
  line: number;
}

function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let open: Block | undefined;
  markdown.split('\n').forEach((text, i) => {
    const fence = /^\s*```(.*)$/.exec(text);
    if (open) {
      if (fence && fence[1].trim() === '') {
        blocks.push(open);
        open = undefined;
      } else open.lines.push(text);
    } else if (fence) open = { info: fence[1].trim(), lines: [], line: i + 2 };
  });
  assert.equal(open, undefined, 'a fenced block is never closed');
  return blocks;
}

/** A page without its fenced blocks. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^\s*```[\s\S]*?^\s*```\s*$/gm, '');
}

/** The prose of a page: fenced blocks and inline code left out, so that code is not taken for links. */
function prose(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors for a page's headings (`## The client` -> `the-client`), duplicates numbered. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = m[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

it('docs/cli.md is what packages/cli/scripts/write-cli-reference.ts renders (re-run the script)', () => {
  assert.equal(read('cli.md'), renderCliReference());
});

it('every relative link in docs/*.md points at a file and heading that exist, and none leaves the repository', () => {
  const outside = new RegExp(`\\.\\./${'shared'}\\b|${'DESIGN'}\\.md`);
  const broken: string[] = [];
  for (const doc of docs) {
    const text = read(doc);
    assert.doesNotMatch(text, outside, `${doc} mentions a file outside the repository`);
    for (const m of prose(text).matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#');
      const file = path === '' ? join(docsDir, doc) : resolve(docsDir, path);
      if (relative(root, file).startsWith('..')) broken.push(`${doc}: ${target} is outside the repository`);
      else if (!existsSync(file)) broken.push(`${doc}: ${target}: no such file`);
      else if (anchor && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${doc}: ${target}: no such heading`);
    }
  }
  assert.deepEqual(broken, []);
});

/** The guides whose ```ts blocks are compiled. */
const compiledGuides = ['runtime.md', 'from-kubebuilder.md', 'architecture.md'];

it('the guides\' TypeScript compiles in a scaffolded project, and their API types generate', { timeout: 60_000 }, () => {
  // A project as `operant init` + `create api` leave it: the group's package marker, then each
  // block as a file (the one it names in a first-line `// src/...` comment, else a file of its own).
  const dir = mkdtempSync(join(tmpdir(), 'operant-docs-snippets-'));
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const files = new Map<string, { doc: string; line: number }>();
    const put = (path: string, text: string): void => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    put('package.json', '{ "type": "module" }\n');
    put('src/api/v1/groupversion-info.ts', '// +groupName=webapp.example.com\nexport {};\n');
    put(
      'src/context.d.ts',
      "import type { Client, Manager } from '@operant/runtime';\ndeclare global {\n  const mgr: Manager;\n  const client: Client;\n  const signal: AbortSignal;\n}\n",
    );
    for (const doc of compiledGuides.filter((d) => docs.includes(d))) {
      fencedBlocks(read(doc))
        .filter((b) => b.info === 'ts' || b.info === 'typescript')
        .forEach((block, i) => {
          const named = /^\/\/ (src\/[\w./-]+\.ts)$/.exec(block.lines[0] ?? '');
          const path = named ? named[1] : `src/${basename(doc, '.md')}-${i + 1}.ts`;
          assert.ok(!files.has(path), `${doc}:${block.line}: ${path} is shown twice`);
          files.set(path, { doc, line: block.line });
          put(path, `${block.lines.join('\n')}\nexport {};\n`);
        });
    }
    // `operant generate`: the kinds module the snippets import; the CRDs, role and webhook
    // configurations are made too, which fails on a wrong marker.
    const project = loadProject(['src/**/*.ts'], dir);
    writeOutputs(kindsOutputs(project), dir);
    assert.ok(crdOutputs(project, { outputDir: 'config/crd/bases' }).files.length > 0, 'the guides define no kind');
    rbacOutput(project, 'config/rbac', 'manager-role');
    webhookOutput(project, 'config/webhook');

    const sources = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(d, e.name)) : e.name.endsWith('.ts') ? [join(d, e.name)] : []));
    const snippets = [...files].map(([path, where]) => ({ path: join(dir, path), text: readFileSync(join(dir, path), 'utf8'), ...where }));
    const failures = compileSnippets(snippets, { extraRoots: sources(join(dir, 'src')) }).map(
      (d) => `docs/${d.snippet.doc}:${d.snippet.line + d.line}: TS${d.code}: ${d.message('\n  ')}`,
    );
    assert.deepEqual(failures, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A command of the quick start, and the line of docs/quick-start.md it is on. */
interface Command {
  text: string;
  line: number;
}

/** A command left running, as in another terminal. */
interface Background {
  command: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
}

/** Commands that run until stopped: what shows they are up, and whether they stay up for the rest of the page. */
const longRunning: Array<{ command: RegExp; ready: RegExp; keep: boolean }> = [
  // "In a second terminal": stays up while the page goes on.
  { command: /^npx operant server\b/, ready: /^ready https:\/\/\S+$/m, keep: true },
  // The operator: its first reconcile of the sample is what the page promises; then Ctrl-C.
  { command: /^npm run dev\b/, ready: /reconciled Guestbook/, keep: false },
];

/** What a command's output must show, beside its exit status 0. */
const expectations: Array<{ command: RegExp; output: RegExp }> = [
  { command: /operant init\b/, output: /^wrote PROJECT$/m },
  { command: /operant create api\b/, output: /^wrote config\/crd\/bases\/webapp\.example\.com_guestbooks\.yaml$/m },
  { command: /^npm test\b/, output: /^# fail 0$/m },
  { command: /get guestbooks\b/, output: /^guestbook-sample\s/m },
];

function stopGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    // The shell, npm and node it started share the group this test made for them.
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

async function stop(bg: Background): Promise<void> {
  if (bg.child.exitCode === null && bg.child.signalCode === null) stopGroup(bg.child, 'SIGINT');
  const timer = setTimeout(() => stopGroup(bg.child, 'SIGKILL'), 15_000);
  await bg.exited;
  clearTimeout(timer);
  stopGroup(bg.child, 'SIGKILL'); // anything of the group still there
}

describe('the quick start, run as written', () => {
  const commands: Command[] = fencedBlocks(read('quick-start.md'))
    .filter((b) => b.info === 'sh')
    .flatMap((b) => b.lines.map((text, i) => ({ text: text.trim(), line: b.line + i })))
    .filter((c) => c.text !== '' && !c.text.startsWith('#'));
  const work = mkdtempSync(join(tmpdir(), 'operant-quick-start-'));
  const running: Background[] = [];
  let passed = false;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    OPERANT: root,
    KUBECACHEDIR: join(work, '.kube-cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  // A user's shell has neither: the page names its kubeconfig, and the operator logs at its default level.
  delete env.KUBECONFIG;
  delete env.OPERANT_LOG_LEVEL;
  // Set by the test runner running this file: `node --test` in the project would take itself for a
  // nested run and skip every test file, passing vacuously.
  delete env.NODE_TEST_CONTEXT;

  after(async () => {
    for (const bg of running.splice(0)) await stop(bg);
    if (passed) rmSync(work, { recursive: true, force: true });
    else console.error(`the quick start's directory is kept for a look: ${work}`);
  });

  function start(command: string, cwd: string): Background {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    return { command, child, output: () => output, exited: once(child, 'exit') };
  }

  async function waitFor(bg: Background, ready: RegExp, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ready.test(bg.output())) {
      if (bg.child.exitCode !== null || bg.child.signalCode !== null) throw new Error(`${bg.command}: exited (${bg.child.exitCode ?? bg.child.signalCode}) before printing ${ready}:\n${bg.output()}`);
      if (Date.now() > deadline) throw new Error(`${bg.command}: no ${ready} after ${timeoutMs / 1000} s:\n${bg.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function run(command: string, cwd: string): Promise<string> {
    const bg = start(command, cwd);
    const timer = setTimeout(() => stopGroup(bg.child, 'SIGKILL'), 180_000);
    await bg.exited;
    clearTimeout(timer);
    assert.equal(bg.child.exitCode, 0, `${command} (in ${cwd}) failed:\n${bg.output()}`);
    return bg.output();
  }

  it('has commands to run', () => {
    assert.ok(commands.length >= 10, `only ${commands.length} commands found in docs/quick-start.md`);
    assert.ok(commands.some((c) => /\$OPERANT\b/.test(c.text)), 'the page never uses $OPERANT');
  });

  it('every command works, from an empty directory to a reconciled Guestbook', { timeout: 300_000 }, async (t: TestContext) => {
    let cwd = work;
    for (const { text, line } of commands) {
      const where = `docs/quick-start.md:${line}: ${text}`;
      const cd = /^cd\s+(\S+)$/.exec(text);
      if (cd) {
        cwd = resolve(cwd, cd[1]);
        assert.ok(existsSync(cwd), `${where}: no such directory`);
        continue;
      }
      if (/^kubectl\b/.test(text) && !hasKubectl) {
        t.skip(`${noKubectl}: the quick start ran up to ${where}`);
        passed = true;
        return;
      }
      const command = text === 'npm install' ? 'npm install --prefer-offline --no-audit --no-fund' : text;
      const long = longRunning.find((l) => l.command.test(text));
      let output: string;
      if (long) {
        const bg = start(command, cwd);
        running.push(bg);
        await waitFor(bg, long.ready, 60_000).catch((err: Error) => assert.fail(`${where}: ${err.message}`));
        output = bg.output();
        if (!long.keep) {
          running.splice(running.indexOf(bg), 1);
          await stop(bg);
        }
      } else {
        output = await run(command, cwd).catch((err: Error) => assert.fail(`${where}: ${err.message}`));
      }
      for (const e of expectations.filter((x) => x.command.test(text))) assert.match(output, e.output, `${where}: output`);
    }
    // What the page shows of the scaffolded files is in them, as shown.
    for (const block of fencedBlocks(read('quick-start.md')).filter((b) => b.info === 'ts')) {
      const named = /^\/\/ (src\/[\w./-]+\.ts)$/.exec(block.lines[0] ?? '');
      assert.ok(named, `docs/quick-start.md:${block.line}: a ts block names the file it shows in its first line`);
      const file = readFileSync(join(cwd, named[1]), 'utf8');
      assert.ok(file.includes(block.lines.slice(1).join('\n')), `docs/quick-start.md:${block.line}: not what ${named[1]} holds:\n${file}`);
    }
    passed = true;
  });
});
