/**
 * `operant server --nodes N` runs the simulated cluster in a child process:
 * the nodes register from there, and the child never outlives the server,
 * whether the server is stopped with SIGTERM or killed with SIGKILL (the
 * child notices its IPC channel close). It reaches the server on the
 * server's private socket, not over TLS at its port. Linux: the child and its
 * sockets are found in /proc.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Client, loadKubeConfig, Node } from '@operant/runtime';
import { startServer, type ServerProcess } from './harness.js';

const linux = process.platform === 'linux';

/** The server's child processes, from /proc. */
function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text ? text.split(/\s+/).map(Number) : [];
}

/** Whether a process runs (a zombie, exited but not yet reaped, does not). */
function running(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** The simulated cluster's process under a server started with --nodes, once its node is registered. */
async function clusterChild(server: ServerProcess): Promise<number> {
  const client = Client.fromConfig(await loadKubeConfig({ path: server.kubeconfig }), { qps: Infinity });
  try {
    const nodes = await client.list(Node);
    assert.deepEqual(nodes.items.map((n) => n.metadata.name), ['node-1']);
  } finally {
    client.close();
  }
  const children = childrenOf(server.child.pid!);
  const cluster = children.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('cluster-process-child'));
  assert.equal(cluster.length, 1, `one cluster process among the server's children ${children.join(', ')}`);
  return cluster[0]!;
}

/** The inodes of the sockets `pid` holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** The inodes of the TCP connections (IPv4 and IPv6) whose remote port is `port`. */
function tcpInodesTo(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      if (Number.parseInt(cols[2]!.split(':')[1]!, 16) === port) inodes.add(cols[9]!);
    }
  }
  return inodes;
}

/** The inodes of connected Unix domain sockets accepted on a server's private socket (path `.../api.sock`). */
function privateSocketConnections(): Set<string> {
  const inodes = new Set<string>();
  for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path; St 03 is connected.
    const cols = line.trim().split(/\s+/);
    if (cols[5] === '03' && cols[7]?.endsWith('/api.sock')) inodes.add(cols[6]!);
  }
  return inodes;
}

/** Waits until `pid` no longer runs; a process that is not our child sends no event, so /proc is polled. */
async function gone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (running(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

describe('operant server --nodes: the cluster in a process of its own', { skip: !linux && 'the child is found in /proc' }, () => {
  it('SIGTERM stops the server and the cluster: the server exits 0 after its child', async () => {
    const server = await startServer({ extraArgs: ['--nodes', '1'] });
    const child = await clusterChild(server);
    assert.equal(await server.stop(), 0);
    assert.equal(running(child), false, 'the cluster process is gone when the server has exited');
  });

  it("the cluster reaches the server on its private socket: no TCP connection to the server's port", async () => {
    const server = await startServer({ extraArgs: ['--nodes', '1'] });
    try {
      const child = await clusterChild(server);
      const held = socketInodes(child);
      const port = Number(new URL(server.url).port);
      const overTcp = [...tcpInodesTo(port)].filter((inode) => held.has(inode));
      assert.deepEqual(overTcp, [], `the cluster process holds TCP connections to the server's port ${port}`);
      // The server's ends of the child's connections, accepted on its private socket.
      const accepted = [...privateSocketConnections()].filter((inode) => socketInodes(server.child.pid!).has(inode));
      assert.ok(accepted.length > 0, 'the server holds connections accepted on its private socket');
    } finally {
      await server.stop();
    }
  });

  it('a server killed with SIGKILL leaves no orphan: the cluster process exits on its own', async () => {
    const server = await startServer({ extraArgs: ['--nodes', '1'] });
    const child = await clusterChild(server);
    await server.kill();
    // The child stops its controllers (at most their 10 s graceful shutdown) and exits.
    assert.equal(await gone(child, 20_000), true, `cluster process ${child} still runs after its server was killed`);
  });
});
