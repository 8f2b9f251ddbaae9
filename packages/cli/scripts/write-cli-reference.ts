/**
 * Writes docs/cli.md from the `operant` program's own definition
 * (buildProgram() in src/program.ts), so the reference lists exactly the
 * commands, flags and defaults the CLI has. What the definition cannot say
 * (the contracts other tools rely on) is kept below, per command; a note for a
 * command that no longer exists is an error. A test fails when the committed
 * file differs from what this renders.
 *
 * Run: node --conditions=source --import tsx packages/cli/scripts/write-cli-reference.ts
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Command, Option } from 'commander';
import { buildProgram } from '../src/program.js';

/** Where the reference is written. */
export const cliReferencePath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'cli.md');

const intro = `# CLI reference

Generated from the \`operant\` program's definition by \`packages/cli/scripts/write-cli-reference.ts\`;
do not edit by hand. A test fails when this file and the program disagree.

\`operant\` is the one command of Operant: the embedded API server (\`server\`, \`start\`), the code
generator (\`generate\`, controller-gen's counterpart), the scaffolding (\`init\`, \`create\`,
\`alpha\`, kubebuilder's counterparts) and the development loop (\`dev\`, behind a project's
\`npm run dev\`). Inside the Operant checkout and inside a project made with \`operant init\` it runs
as \`npx operant ...\`; anywhere else as \`npx --prefix <checkout> operant ...\` or
\`node <checkout>/packages/cli/bin/operant.js ...\` (see the [quick start](quick-start.md)).

Every command takes \`-h, --help\`. A command that fails prints \`error: <message>\` on stderr and exits
with status 1; the scaffolding and generating commands then have written nothing. A command that
writes files prints one \`wrote <path>\` line per file.

Two contracts scripts and tests rely on:

- \`operant server\` writes the admin kubeconfig to the \`--kubeconfig\` file first, then prints exactly
  one line on stdout, \`ready <url>\`; once that line is out, the file is complete and the server
  answers. SIGTERM or SIGINT stop it cleanly (exit status 0).
- \`operant generate\` exits with status 1 when any input is wrong, printing
  \`error: <file>:<line>:<col>: <message>\`, and writes nothing (see [code generation](codegen.md)).
`;

/** What a command's definition cannot say, by command path (`generate crd`). Markdown. */
const notes: Record<string, string> = {
  server: `The server listens on HTTPS with a CA it generates, authenticates the admin's bearer token
(in the kubeconfig), client certificates and ServiceAccount tokens, and enforces RBAC for everyone
but the admin. Without \`--data-dir\` it keeps everything in memory; with it, in SQLite (WAL, group
commit: a write is acknowledged once the fsync that covers it is done), so that every acknowledged
write survives even \`kill -9\`. On a full disk the server stays up read-only: writes answer
\`etcdserver: mvcc: database space exceeded\` (a 500, as kube-apiserver passes etcd's NOSPACE on),
reads and watches go on, and writes are accepted again once space frees. Writes are synced in
batches: when a batch cannot be written, each of its writes is taken back whole, and a read that
had already seen one answers the same error rather than an object that was never stored.
A data dir the server cannot use stops the start with one line that names it and exit code 1,
before anything is written to it: a path that is a file or cannot be created or written (\`data dir
D: not writable: read-only file system\`), a \`state.db\` held by another running server (\`in use by
another server\`), one that is not SQLite or is damaged, or one written by a newer storage format
(SQLite's \`user_version\`; this version reads 0). A stored value that is not JSON (SQLite checks no
value's bytes) stops the start too, naming its key and revision.
Recent changes are kept for watches and paginated lists: at most 20,000 events and about 64 MiB of
their objects, and, as kube-apiserver compacts etcd, nothing from before the previous compaction
(every \`--etcd-compaction-interval\`), in memory and in the data dir alike. A watch or a continued
list from an older resourceVersion gets 410 Expired (\`too old resource version\`).

Like kube-apiserver, it bounds what one client can make it hold: request bodies over 3 MiB are
refused (\`Request entity too large: limit is 3145728\`), objects over 1.5 MiB once encoded
(\`etcdserver: request is too large\`), and bodies not sent within 60 s are cut; at most 400
read-only and 200 mutating requests run at once (more get 429 with \`Retry-After\`; watches are counted
apart); a watcher that does not read is dropped once 16 MiB is queued for it.
Memory freed after a burst (large bodies, thousands of connections) goes back to Node's heap at
once, but glibc may keep it resident: a server meant to run for long can start with
\`GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072\`, which
makes glibc return freed blocks of 128 KiB and more to the system (measured with \`npm run bench
soak\`: after a loop of 1 MiB updates, 13% above the level before rather than 55%).
The CA and serving certificate live in the data dir's \`pki/\`; in memory, they are kept across
starts in \`$XDG_CACHE_HOME/operant/pki\` (default \`~/.cache/operant/pki\`, mode 0700, its file
0600), so that starting makes none; the admin token is new at every start. A cache file that others
could read or that another user owns is replaced, with a warning.

With \`--nodes\`, a simulated cluster runs beside it, in a child process of its own (so the server
keeps a core to itself; the child's logs are the server's, and it exits with the server, even one
killed with SIGKILL; it reaches the server with the admin credentials on a Unix domain socket in a
private directory, sparing both processes TLS), like kwok: the deployment, replicaset,
replicationcontroller, statefulset, daemonset, job, cronjob, disruption, endpoint,
endpointslice, persistentvolume-binder, resourcequota, horizontalpodautoscaling, csrcleaner and root-ca-cert-publisher controllers, a
scheduler, and nodes whose pods run and
become ready. A pod whose \`restartPolicy\` is \`Never\` or \`OnFailure\` (a Job's) runs to completion:
its containers exit after the seconds of its \`sim.operant.dev/run-seconds\` annotation (default 1)
with the code of \`sim.operant.dev/exit-code\` (default 0), so the pod Succeeds or Fails (with
\`OnFailure\`, a failing container restarts in place after kube's crash back-off). A deleted
pod's containers exit as on a real node, 143 on SIGTERM (\`sim.operant.dev/stop-exit-code\` says
otherwise) or 137 when killed at the grace period's end, and the pod ends Failed (Succeeded if all
exited 0), whatever its restartPolicy.
\`--time-scale 60\` makes cluster time run a
minute a second (run times, grace periods, cron schedules): timestamps the cluster writes then run
ahead of the server's. Annotations on a pod or node make its kubelet misbehave for tests
(\`sim.operant.dev/crash-loop\`, \`image-pull-failure\`, \`never-ready\`, \`heartbeats-paused\`, and
\`start-seconds\`, which keeps a pod's containers in \`ContainerCreating\` that long; see
the @operant/controllers README); a node whose kubelet stops goes NotReady after 40 s and its pods
are evicted after their tolerations (300 s by default), as kube's node lifecycle controller does.`,
  nodes: `The nodes register and heartbeat like any others; killing this process (even with \`kill -9\`)
is a node that dies: after the 40 s grace period the cluster's node lifecycle controller marks it
NotReady and its pods are evicted and replaced elsewhere. With \`--time-scale\`, give this command
and the server the same \`--time-anchor\` (epoch milliseconds), so that both read the same cluster
time. Use \`--first-index\` past the server's nodes, so that names and addresses stay apart:
\`operant server --nodes 3\` runs node-1 to node-3, \`operant nodes --kubeconfig K --first-index 4\`
adds node-4.`,
  start: `A server keeping its data in \`<dir>/data\` and its kubeconfig in \`<dir>/kubeconfig\`; it prints
\`ready <url>\` and then commands to try. (\`npm start\` at the repository root runs the SidecarSet
demo instead: such a server with 3 simulated nodes, the operator and its samples.)`,
  generate: `Without a subcommand it writes everything, in the layout \`operant init\` makes:
\`config/crd/bases/<group>_<plural>.yaml\`, \`config/rbac/role.yaml\`, \`config/webhook/manifests.yaml\`
and \`src/api/<version>/zz_generated.kinds.ts\` (each kind as a value for the client). The same input
gives the same bytes. Markers: [markers.md](markers.md).`,
  'generate crd': `Without \`--output-dir\`, writes to \`config/crd/bases\`. \`--max-description-length 0\` drops
every description (controller-gen's \`crd:maxDescLen=0\`), for CRDs too large for client-side apply.`,
  'generate rbac': 'Without `--output-dir`, writes `config/rbac/role.yaml`.',
  'generate webhook': 'Without `--output-dir`, writes `config/webhook/manifests.yaml`.',
  init: `Writes \`PROJECT\`, \`package.json\` (npm scripts for the Makefile's targets), \`tsconfig.json\`,
\`src/main.ts\` (the manager), \`test/\`, \`config/\` (kustomize), a \`Dockerfile\` and a README. It
refuses to run where a \`PROJECT\` file exists. Outside the Operant checkout the project depends on
the checkout's packages through \`file:\` links.`,
  'create api': `Writes \`src/api/<version>/<kind>-types.ts\` (and \`groupversion-info.ts\`),
\`src/controllers/<kind>-controller.ts\` with its test, a sample in \`config/samples/\` and roles in
\`config/rbac/\`; registers the controller in \`src/main.ts\`, records the resource in \`PROJECT\`, then
runs \`operant generate\`. Boolean flags take kubebuilder's forms: \`--namespaced=false\` for a
cluster-scoped kind, \`--resource=false\` for a controller of a built-in kind (\`--group core --version
v1 --kind Pod\`).`,
  'create webhook': `Writes \`src/webhooks/<version>/<kind>-webhook.ts\` (a typed defaulter and/or validator),
registers it in \`src/main.ts\`, adds \`config/webhook/\` and \`config/certmanager/\`, then runs \`operant
generate\`. The kind must exist (\`create api\` first), except for built-in kinds. \`--conversion\` is refused
for now: the runtime serves conversion webhooks, but they are not scaffolded.`,
  dev: `Run in a project (\`npm run dev\`): regenerates, installs the CRDs from \`config/crd/bases\` and the
webhook configurations (pointed at \`https://127.0.0.1:<port>\` with a local CA in
\`.operant/webhook-certs\`), then runs \`src/main.ts\` with tsx as a child process (health and metrics
servers off); a change under \`src/\` does it all again and restarts the manager. Without
\`--kubeconfig\`, \`KUBECONFIG\` or \`~/.kube/config\` it starts an embedded API server and writes its
kubeconfig to \`.operant/kubeconfig\`. Ctrl-C stops the manager and removes the webhook configurations.`,
  chaos: `The proxy prints \`ready <url>\`, writes its kubeconfig (mode 0600: its URL, its CA and a token it
made up, 32 random bytes) and forwards a request bearing that token with the credentials of \`--kubeconfig\`
(over HTTPS, a request bearing credentials of its own goes on with them; one bearing none gets 401).
It serves HTTPS with a CA of its own by default. \`--plain-http\` serves plain HTTP instead, for tests and
local runs, which spares every request a second TLS termination: it listens on loopback only (\`--listen\`
127.0.0.1 or [::1]; any other address is refused), the kubeconfig says \`server: http://127.0.0.1:<port>\`,
and a request without the token gets 401 Unauthorized (a kube Status). kubectl, client-go and
@kubernetes/client-node use that kubeconfig as it is.`,
  'alpha webhook': `For built-in kinds such as Pods it writes a raw admission handler (decode, change, patch) in
place of a typed defaulter or validator; \`--operations\` takes \`create\`, \`update\`, \`delete\` and \`connect\`.`,
};

function commandPath(path: readonly string[]): string {
  return path.join(' ');
}

/** The flags without a short alias, e.g. `--paths <glob...>`. */
function longFlags(option: Option): string {
  return option.flags.replace(/^-\w,\s*/, '');
}

function synopsis(cmd: Command, path: readonly string[]): string {
  const parts = ['operant', ...path];
  for (const option of cmd.options) if (option.mandatory) parts.push(longFlags(option));
  if (cmd.options.some((o) => !o.mandatory)) parts.push('[options]');
  // A command with options of its own runs by itself too; one without only groups its subcommands.
  if (cmd.commands.length > 0) parts.push(cmd.options.length > 0 ? '[command]' : '<command>');
  return parts.join(' ');
}

function defaultText(option: Option): string {
  if (option.mandatory) return 'required';
  const value: unknown = option.defaultValue;
  if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) return '';
  return `\`${Array.isArray(value) ? value.join(' ') : String(value)}\``;
}

/**
 * A help text as Markdown prose: `<dir>` would be taken for an HTML tag and
 * `src/**\/*.ts` for emphasis, so those characters are escaped; backticks are kept.
 */
function prose(text: string): string {
  return text.replace(/[\\*_<>|]/g, (c) => ({ '<': '&lt;', '>': '&gt;' })[c] ?? `\\${c}`).replace(/\s*\n\s*/g, ' ');
}

/** A description as a sentence: capitalized, with a full stop. */
function sentence(text: string): string {
  const t = prose(text);
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
}

function optionsTable(cmd: Command): string {
  if (cmd.options.length === 0) return '';
  const rows = cmd.options.map((o) => `| \`${o.flags}\` | ${defaultText(o)} | ${prose(o.description)} |`);
  return ['| option | default | description |', '|---|---|---|', ...rows, ''].join('\n');
}

/** The anchor GitHub gives the command's heading (`operant generate crd` -> `operant-generate-crd`). */
function anchorOf(path: readonly string[]): string {
  return ['operant', ...path].join('-');
}

function commands(cmd: Command, path: readonly string[] = []): Array<{ cmd: Command; path: string[] }> {
  return cmd.commands.flatMap((sub) => {
    const subPath = [...path, sub.name()];
    return [{ cmd: sub, path: subPath }, ...commands(sub, subPath)];
  });
}

function section(cmd: Command, path: readonly string[], seen: Set<string>): string {
  const key = commandPath(path);
  seen.add(key);
  const heading = `${'#'.repeat(Math.min(2 + path.length - 1, 4))} \`operant ${key}\``;
  const subcommands = cmd.commands.length > 0 ? `\nSubcommands: ${cmd.commands.map((s) => `[\`${s.name()}\`](#${anchorOf([...path, s.name()])})`).join(', ')}.\n` : '';
  const note = notes[key] ? `\n${notes[key]}\n` : '';
  return [
    heading,
    '',
    sentence(cmd.description()),
    '',
    '```',
    synopsis(cmd, path),
    '```',
    '',
    optionsTable(cmd),
  ].join('\n') + subcommands + note;
}

/** docs/cli.md for `program` (default: the `operant` program as it is defined now). */
export function renderCliReference(program: Command = buildProgram()): string {
  const all = commands(program);
  const seen = new Set<string>();
  const index = all.map(({ cmd, path }) => `${'  '.repeat(path.length - 1)}- [\`operant ${commandPath(path)}\`](#${anchorOf(path)}): ${prose(cmd.description())}`);
  const global = ['## Global options', '', '```', synopsis(program, []), '```', '', optionsTable(program)].join('\n');
  const body = all.map(({ cmd, path }) => section(cmd, path, seen)).join('\n');
  const stale = Object.keys(notes).filter((k) => !seen.has(k));
  if (stale.length > 0) throw new Error(`write-cli-reference: notes for commands that do not exist: ${stale.join(', ')}`);
  return `${intro}\n## Commands\n\n${index.join('\n')}\n\n${global}\n${body}`.replace(/\n{3,}/g, '\n\n').replace(/\n*$/, '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(cliReferencePath, renderCliReference());
  console.log(`wrote ${cliReferencePath}`);
}
