/**
 * `npx operant chaos` (the built CLI, as users run it) in front of an
 * embedded server: it writes a kubeconfig that a client can use, prints the
 * seed, the schedule, a timeline of what hit the client's requests, and a
 * summary; `--plan` prints the same schedule for the same seed without proxying,
 * pod deletions included when asked; `--plain-http` serves plain HTTP on
 * loopback (and refuses any other address).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect as connectTcp, createServer, type AddressInfo, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, ConfigMap, Namespace, loadKubeConfig, type ClientConfig } from '@operant/runtime';
import { TestEnv } from '../src/index.js';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli', 'bin', 'operant.js');
const env = await TestEnv.start();
const dir = mkdtempSync(join(tmpdir(), 'operant-chaos-cli-'));
after(async () => {
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
});

const args = ['--seed', '4242', '--duration', '3s', '--mean-gap', '300ms', '--faults', 'error:503,latency:50,reset'];
/** The same faults for the tests that proxy creates: a schedule longer than they run, which they interrupt (see createThroughChaos). */
const proxyArgs = ['--seed', '4242', '--duration', '60s', '--mean-gap', '300ms', '--faults', 'error:503,latency:50,reset'];

/** A running `operant chaos`: its output so far, and its exit. */
interface RunningChaos {
  readonly out: string;
  readonly err: string;
  exited: Promise<unknown[]>;
  /** Resolves with `performance.now()` on the chunk of its output that makes `pattern` match it; rejects if it ends without. */
  printed(pattern: RegExp): Promise<number>;
  /** Ends it with SIGKILL (a test that gave up on its exit). */
  kill(): void;
  /** Sends SIGINT, as Ctrl-C: it ends its schedule there, prints its summary and exits. */
  interrupt(): void;
}

/** `operant chaos` with `argv`, once its output shows `ready`; out and err keep filling until it exits. */
async function startChaos(argv: string[], ready: RegExp): Promise<RunningChaos> {
  const child = spawn(process.execPath, [cli, 'chaos', ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = once(child, 'exit');
  // 'close' comes after the last of its output: a pattern not matched by then never will be.
  const closed = once(child, 'close');
  const printed = (pattern: RegExp): Promise<number> =>
    new Promise<number>((resolve, reject) => {
      if (pattern.test(out)) return resolve(performance.now());
      const onData = (): void => {
        if (!pattern.test(out)) return;
        child.stdout.off('data', onData);
        resolve(performance.now());
      };
      child.stdout.on('data', onData);
      void closed.then(([code]) => reject(new Error(`operant chaos exited with ${code} before printing ${pattern}: ${out}\n${err}`)));
    });
  // Registered first, so that the output is complete when the waiters of printed() look at it.
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await printed(ready);
  return {
    get out() {
      return out;
    },
    get err() {
      return err;
    },
    exited,
    printed,
    kill: () => void child.kill('SIGKILL'),
    interrupt: () => void child.kill('SIGINT'),
  };
}
/**
 * Creates ConfigMaps in `namespace` through `config`, four at a time, until some have passed and the
 * schedule's 503 has struck one (its `hit` line printed), then interrupts `chaos` and checks that it
 * printed its summary and exited 0. It ends on what it saw, not on the schedule's clock (which starts
 * at `ready`): a test process held up for seconds on a loaded machine once found a 3 s schedule over
 * and the proxy gone, every create refused.
 */
async function createThroughChaos(chaos: RunningChaos, config: ClientConfig, namespace: string): Promise<void> {
  const client = Client.fromConfig(config, { qps: Infinity });
  let ok = 0;
  let failed = 0;
  const errors = new Set<string>();
  let passed!: () => void;
  const onePassed = new Promise<void>((resolve) => (passed = resolve));
  const struck = chaos.printed(new RegExp(`^ +\\+\\d+\\.\\d\\ds {2}hit {3}#\\d+ error: create configmaps ${namespace}/cm-\\d+: answered 503$`, 'm'));
  let done = false;
  let next = 0;
  const creator = async (): Promise<void> => {
    while (!done) {
      await client.create(ConfigMap, { metadata: { name: `cm-${next++}`, namespace } }).then(
        () => (ok++, passed()),
        (e: Error) => (failed++, errors.add(e.message)),
      );
    }
  };
  const creators = Promise.all([creator(), creator(), creator(), creator()]);
  // If the proxy ends first (its schedule over, or a crash), the test fails with its output, rather than waiting.
  const proxyEnded = chaos.exited.then(() => Promise.reject(new Error(`operant chaos exited before a create passed and a 503 struck one:\n${chaos.out}\n${chaos.err}`)));
  proxyEnded.catch(() => undefined);
  try {
    await Promise.race([Promise.all([onePassed, struck]), proxyEnded]);
  } finally {
    done = true;
    await creators;
    client.close();
  }
  chaos.interrupt();
  await chaos.printed(/^ {2}failed writes: /m);
  const [code] = (await chaos.exited) as [number];
  assert.equal(code, 0, chaos.err);
  assert.ok(ok > 0 && failed > 0, `${ok} requests passed, ${failed} failed: ${[...errors].join('; ')}\n${chaos.out}\n${chaos.err}`);
}

test('--plan prints the schedule of the seed and exits', () => {
  const plan = execFileSync(process.execPath, [cli, 'chaos', ...args, '--plan'], { encoding: 'utf8' });
  assert.match(plan, /^chaos schedule: seed 4242, 3.00s, \d+ faults\n/);
  assert.equal(execFileSync(process.execPath, [cli, 'chaos', ...args, '--plan'], { encoding: 'utf8' }), plan, 'the same seed, the same schedule');
});

test('--faults delete-pod:<label>=<value> plans pod deletions in the given namespaces; a bad option is refused', () => {
  const plan = execFileSync(process.execPath, [cli, 'chaos', '--seed', '7', '--duration', '5s', '--faults', 'delete-pod:app=web', '--namespaces', 'team-a', '--plan'], { encoding: 'utf8' });
  assert.match(plan, /^ +\+ *\d+\.\d\ds for +\d+\.\d\ds {2}delete a pod \(app=web\) in team-a$/m);
  assert.throws(
    () => execFileSync(process.execPath, [cli, 'chaos', '--faults', 'delete-pod:nonsense', '--plan'], { encoding: 'utf8', stdio: 'pipe' }),
    (err: Error & { stderr?: string }) => /--faults: "delete-pod:nonsense": delete-pod takes no option "nonsense"/.test(err.stderr ?? ''),
  );
});

/** What `operant chaos --faults <faults> --plan` says on stderr when it refuses them (it must refuse). */
function refusal(faults: string): string {
  try {
    execFileSync(process.execPath, [cli, 'chaos', '--faults', faults, '--plan'], { encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    return (err as { stderr?: string }).stderr ?? '';
  }
  throw new Error(`--faults ${faults} was accepted`);
}

test("a fault option its kind does not take is refused, saying which options it takes", () => {
  assert.match(refusal('error:418'), /^error: --faults: "error:418": error takes no option "418": its options are a code \(500, 503, 504, 429\), applied and p=<a probability from 0 to 1>, e\.g\. error:503:p=0\.3$/m);
  assert.match(refusal('error:503:p=2'), /^error: --faults: "error:503:p=2": error takes no option "p=2": its options are a code/m);
  assert.match(refusal('reset:p=half'), /^error: --faults: "reset:p=half": reset takes no option "p=half": its options are applied and p=<a probability from 0 to 1>, e\.g\. reset:applied:p=0\.3$/m);
  assert.match(refusal('latency:200ms'), /^error: --faults: "latency:200ms": latency takes no option "200ms": its option is the delay in ms, e\.g\. latency:200$/m);
  assert.match(refusal('delete-pod:web'), /^error: --faults: "delete-pod:web": delete-pod takes no option "web": its option is a label selector, e\.g\. delete-pod:app=web$/m);
  assert.match(refusal('cut-watch:3'), /^error: --faults: "cut-watch:3": cut-watch takes no option "3": cut-watch takes no options$/m);
});

test('operator and server faults are refused, each saying who plays it', () => {
  assert.match(refusal('kill-leader'), /^error: --faults: kill-leader is an operator fault: the proxy does not run the operator, so a test that runs it plays it \(PlayOptions\.operator\)$/m);
  assert.match(refusal('restart-server'), /^error: --faults: restart-server is a server fault: operant chaos does not run the API server, so a test environment that does plays it \(a durable TestEnv's faultProxy\(\)\)$/m);
  // Compacting needs no data directory: any TestEnv's proxy plays it.
  assert.match(refusal('compact'), /^error: --faults: compact is a server fault: operant chaos does not run the API server, so a test environment that does plays it \(a TestEnv's faultProxy\(\)\)$/m);
});

test('proxies a client through its kubeconfig, printing the seed, the timeline and a summary', async () => {
  const kubeconfig = join(dir, 'chaos-kubeconfig');
  const ns = (await env.namespace()).name;
  const chaos = await startChaos([...proxyArgs, '--kubeconfig', env.kubeconfig.path, '--write-kubeconfig', kubeconfig], /^ready https:\/\/127\.0\.0\.1:\d+$/m);
  await createThroughChaos(chaos, await loadKubeConfig({ path: kubeconfig }), ns);
  const plan = execFileSync(process.execPath, [cli, 'chaos', ...proxyArgs, '--plan'], { encoding: 'utf8' });
  assert.ok(chaos.out.includes(plan), 'the schedule is printed as --plan prints it');
  assert.match(chaos.out, /^chaos: seed 4242, 60.0 s, \d+ faults \(replay: seed 4242\)$/m);
  assert.match(chaos.out, /^ +\+\d+\.\d\ds {2}start #\d+ error 503 p=0\.5$/m);
  assert.match(chaos.out, new RegExp(`^ +\\+\\d+\\.\\d\\ds {2}hit {3}#\\d+ error: create configmaps ${ns}/cm-\\d+: answered 503$`, 'm'));
  // Interrupted once it saw what it came for: the summary says how far the schedule got.
  assert.match(chaos.out, /^chaos summary: seed 4242, ran \d+\.\d s of 60\.0 s, \d+ requests proxied$/m);
  assert.match(chaos.out, /^ {2}failed writes: \d+, of which \d+ applied by the server/m);
});

test('--plain-http serves http://127.0.0.1 with a kubeconfig (mode 0600) that a client uses as it is, and injects faults', async () => {
  const kubeconfig = join(dir, 'plain-kubeconfig');
  const ns = (await env.namespace()).name;
  const chaos = await startChaos([...proxyArgs, '--plain-http', '--kubeconfig', env.kubeconfig.path, '--write-kubeconfig', kubeconfig], /^kubeconfig /m);
  const url = /^ready (\S+)$/m.exec(chaos.out)?.[1];
  assert.match(url ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(statSync(kubeconfig).mode & 0o777, 0o600);
  const config = await loadKubeConfig({ path: kubeconfig });
  assert.ok(config.server.startsWith(`${url}/chaos/`), config.server);
  await createThroughChaos(chaos, config, ns);
  assert.match(chaos.out, new RegExp(`^ +\\+\\d+\\.\\d\\ds {2}hit {3}#\\d+ error: create configmaps ${ns}/cm-\\d+: answered 503$`, 'm'));
  assert.doesNotMatch(chaos.out, new RegExp(config.server.split('/chaos/')[1]!), 'the token is not printed');
});

/** A TCP port free on 127.0.0.1 now, for `--listen`. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Lists namespaces through the kubeconfig `chaos` wrote at `path`, then interrupts it: it prints its summary and exits 0. */
async function clientThrough(chaos: RunningChaos, path: string): Promise<void> {
  const client = Client.fromConfig(await loadKubeConfig({ path }), { qps: Infinity });
  try {
    assert.ok((await client.list(Namespace)).items.some((n) => n.metadata.name === 'default'), 'a client reaches the server through the proxy');
  } finally {
    client.close();
    chaos.interrupt();
  }
  const [code] = (await chaos.exited) as [number];
  assert.equal(code, 0, chaos.err);
}

test('--listen host:port is where it listens over HTTPS; the kubeconfig it writes names that address, and a client uses it as it is', async () => {
  const port = await freePort();
  const kubeconfig = join(dir, 'listen-kubeconfig');
  const chaos = await startChaos(['--seed', '1', '--duration', '60s', '--faults', 'latency:1', '--listen', `127.0.0.1:${port}`, '--kubeconfig', env.kubeconfig.path, '--write-kubeconfig', kubeconfig], /^kubeconfig /m);
  assert.match(chaos.out, new RegExp(`^ready https://127\\.0\\.0\\.1:${port}$`, 'm'));
  assert.equal((await loadKubeConfig({ path: kubeconfig })).server, `https://127.0.0.1:${port}`);
  await clientThrough(chaos, kubeconfig);
});

test('--listen on every address ([::] or 0.0.0.0): the kubeconfig names loopback, which its certificate covers, not the unspecified address', async () => {
  for (const [listen, url] of [['[::]:0', /^https:\/\/\[::1\]:\d+$/], ['0.0.0.0:0', /^https:\/\/127\.0\.0\.1:\d+$/]] as const) {
    const kubeconfig = join(dir, `any-address-kubeconfig-${listen.startsWith('[') ? 6 : 4}`);
    const chaos = await startChaos(['--seed', '1', '--duration', '60s', '--faults', 'latency:1', '--listen', listen, '--kubeconfig', env.kubeconfig.path, '--write-kubeconfig', kubeconfig], /^kubeconfig /m);
    assert.match(/^ready (\S+)$/m.exec(chaos.out)?.[1] ?? '', url, listen);
    assert.match((await loadKubeConfig({ path: kubeconfig })).server, url, listen);
    await clientThrough(chaos, kubeconfig);
  }
});

test('--plain-http refuses to listen anywhere but loopback', () => {
  for (const listen of ['0.0.0.0:0', '[::]:0']) {
    assert.throws(
      () => execFileSync(process.execPath, [cli, 'chaos', '--plain-http', '--listen', listen, '--kubeconfig', env.kubeconfig.path, '--write-kubeconfig', join(dir, 'never'), '--exit'], { encoding: 'utf8', stdio: 'pipe' }),
      (e: Error & { status?: number; stderr?: string }) =>
        e.status === 1 && /^error: the chaos proxy serves plain HTTP only on loopback \(127\.0\.0\.1 or ::1\), not on "(0\.0\.0\.0|::)"/.test(e.stderr ?? ''),
      listen,
    );
  }
});

/** Resolves once nothing listens on `port` any more (a connection is refused). */
async function listenerClosed(port: number): Promise<void> {
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const probe = connectTcp(port, '127.0.0.1');
      probe.once('connect', () => (probe.destroy(), resolve(false)));
      probe.once('error', () => resolve(true));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A client whose connection was accepted before the proxy stopped listening
 * but whose TLS handshake was still to come (one connecting just then): once
 * the listener is closed it finishes the handshake and sends GETs on the
 * connection, kept alive, for as long as it stays open. Resolves with the
 * answers it got after the listener closed.
 */
async function connectingAtTheEnd(tcp: Socket, port: number, token: string, summaryPrinted: Promise<unknown>): Promise<number> {
  // Closed by the proxy before the handshake starts, the TLS socket on it would never tell.
  const tcpClosed = new Promise((resolve) => tcp.once('close', resolve));
  // The proxy stops after its summary: only then is there a listener's close to wait for.
  await summaryPrinted;
  await listenerClosed(port);
  const socket = connectTls({ socket: tcp, rejectUnauthorized: false, servername: 'localhost' });
  let answers = 0;
  let pending = '';
  const get = (): void => void socket.write(`GET /api HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  socket.once('secureConnect', get);
  socket.on('data', (d: Buffer) => {
    pending += d.toString();
    const head = pending.indexOf('\r\n\r\n');
    const length = Number(/^content-length: *(\d+)/im.exec(pending.slice(0, head))?.[1] ?? NaN);
    if (head < 0 || !(pending.length >= head + 4 + length)) return;
    pending = pending.slice(head + 4 + length);
    answers++;
    get();
  });
  // Reset or closed, it ends the same way: what counts is the answers it got.
  socket.on('error', () => undefined);
  await Promise.race([tcpClosed, new Promise((resolve) => socket.once('close', resolve))]);
  return answers;
}

test('--exit: when the schedule is over it prints its summary and exits, closing the connections of clients that keep sending and watching', async (t) => {
  const kubeconfig = join(dir, 'busy-kubeconfig');
  const ns = (await env.namespace()).name;
  const chaos = await startChaos(['--seed', '1', '--duration', '2s', '--kubeconfig', env.kubeconfig.path, '--write-kubeconfig', kubeconfig, '--exit'], /^ready https:\/\/127\.0\.0\.1:\d+$/m);
  let exitedAt: number | undefined;
  const exited = chaos.exited.then(() => (exitedAt = performance.now()));
  // The clients never stop by themselves: only the proxy's exit (or the test giving up on it) ends them.
  const giveUp = new AbortController();
  const clients = new AbortController();
  void exited.then(() => clients.abort());
  const client = Client.fromConfig(await loadKubeConfig({ path: kubeconfig }), { qps: Infinity });
  const requests = { gets: 0, creates: 0, watchEvents: 0, watches: 0 };
  const keepGetting = async (): Promise<void> => {
    while (!clients.signal.aborted) await client.list(ConfigMap, { namespace: ns }).then(() => requests.gets++, () => undefined);
  };
  const keepCreating = async (): Promise<void> => {
    while (!clients.signal.aborted) await client.create(ConfigMap, { metadata: { generateName: 'busy-', namespace: ns } }).then(() => requests.creates++, () => undefined);
  };
  const keepWatching = async (): Promise<void> => {
    while (!clients.signal.aborted) {
      requests.watches++;
      try {
        for await (const event of client.watch(ConfigMap, { namespace: ns, signal: clients.signal })) if (event.type !== 'BOOKMARK') requests.watchEvents++;
      } catch {
        // A fault or the proxy's exit ended it: watch again, as an informer would (after a pause, as it would too).
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  const running = Promise.all([keepGetting(), keepGetting(), keepCreating(), keepWatching(), keepWatching(), keepWatching()]);
  const port = Number(new URL(/^ready (\S+)$/m.exec(chaos.out)![1]!).port);
  const tcp = connectTcp(port, '127.0.0.1');
  tcp.on('error', () => undefined);
  await once(tcp, 'connect');
  // The schedule's 2 s, then the summary; the proxy's keep-alive (65 s) is what a hang would wait out, at least.
  const summaryPrinted = chaos.printed(/^chaos summary: /m);
  const late = connectingAtTheEnd(tcp, port, /^ +token: (\S+)$/m.exec(readFileSync(kubeconfig, 'utf8'))![1]!, summaryPrinted);
  const summary = await summaryPrinted;
  const hang = setTimeout(() => giveUp.abort(), 30_000);
  await Promise.race([exited, new Promise((resolve) => giveUp.signal.addEventListener('abort', resolve, { once: true }))]);
  clearTimeout(hang);
  const hung = exitedAt === undefined;
  // Killed before the clients are awaited: a request it holds would hold them.
  if (hung) chaos.kill();
  clients.abort();
  await running;
  client.close();
  const lateAnswers = await late;
  assert.ok(!hung && exitedAt !== undefined, `operant chaos did not exit within 30 s of its summary, with clients sending (${JSON.stringify(requests)}):\n${chaos.out}\n${chaos.err}`);
  const [code] = (await chaos.exited) as [number];
  assert.equal(code, 0, chaos.err);
  assert.ok(requests.gets > 0 && requests.creates > 0 && requests.watchEvents > 0, `the clients were busy through it: ${JSON.stringify(requests)}`);
  assert.match(chaos.out, /^chaos summary: seed 1, ran 2\.\d s of 2\.0 s, \d+ requests proxied$/m);
  assert.equal(lateAnswers, 0, 'a connection whose handshake came after the listener closed is not served');
  t.diagnostic(`exited ${(exitedAt - summary).toFixed(0)} ms after its summary; ${JSON.stringify(requests)}`);
});
