/**
 * One process's first starts, for the testing section (testing.ts):
 *
 *   testing-child.ts env CRD_FILE    TestEnv.start({ crds }) twice
 *   testing-child.ts server          startApiServer({ port: 0 }) twice (the baseline)
 *
 * Prints one JSON line: how long the import took, then the first and second
 * start to ready (each stopped before the next), and the first start's CPU
 * time (process.cpuUsage, all threads), which a loaded machine inflates much
 * less than the wall time.
 */
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};
const mode = process.argv[2];
const t0 = performance.now();
if (mode === 'env') {
  const { TestEnv } = await import('@operant/testing');
  const imported = performance.now();
  const cpu = process.cpuUsage();
  const first = await TestEnv.start({ crds: process.argv[3] });
  const firstMs = performance.now() - imported;
  const firstCpuMs = cpuMs(cpu);
  await first.stop();
  const second = await TestEnv.start({ crds: process.argv[3] });
  console.log(JSON.stringify({ importMs: imported - t0, firstMs, secondMs: second.startMs, firstCpuMs }));
  await second.stop();
} else {
  const { startApiServer } = await import('@operant/apiserver');
  const imported = performance.now();
  const cpu = process.cpuUsage();
  const first = await startApiServer({ port: 0 });
  const firstMs = performance.now() - imported;
  const firstCpuMs = cpuMs(cpu);
  await first.stop();
  const t = performance.now();
  const second = await startApiServer({ port: 0 });
  const secondMs = performance.now() - t;
  console.log(JSON.stringify({ importMs: imported - t0, firstMs, secondMs, firstCpuMs }));
  await second.stop();
}
