/**
 * `operant server --nodes N` runs the simulated cluster in a child process:
 * the nodes register from there, and the child never outlives the server,
 * whether the server is stopped with SIGTERM or killed with SIGKILL (the
 * child notices its IPC channel close). Linux: the child is found in /proc.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
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

  it('a server killed with SIGKILL leaves no orphan: the cluster process exits on its own', async () => {
    const server = await startServer({ extraArgs: ['--nodes', '1'] });
    const child = await clusterChild(server);
    await server.kill();
    // The child stops its controllers (at most their 10 s graceful shutdown) and exits.
    assert.equal(await gone(child, 20_000), true, `cluster process ${child} still runs after its server was killed`);
  });
});
