/**
 * `operant generate` (issue 11's benchmark): wall time of the real CLI on the
 * CronJob tutorial and on generated projects of 1, 5 and 20 kinds (each with a
 * PodTemplateSpec, so the Kubernetes types are written out too), against the
 * floor of the same CLI doing nothing (`operant --help`), so that the ratio
 * shows what generation adds to starting Node. Aim: under 2 s for 20 kinds.
 * controller-gen needs a Go toolchain and a build of the packages; it is not
 * on these machines, so it cannot be measured beside ours.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { timedOperant } from './operant-cli.js';
import { fmt, row, type Row } from './table.js';

type Log = (text: string) => void;


function kindsProject(dir: string, kinds: number): void {
  mkdirSync(join(dir, 'src', 'api', 'v1'), { recursive: true });
  writeFileSync(join(dir, 'src', 'api', 'v1', 'groupversion-info.ts'), '// +groupName=bench.example.com\nexport {};\n');
  for (let i = 0; i < kinds; i++) {
    writeFileSync(
      join(dir, 'src', 'api', 'v1', `kind${i}-types.ts`),
      `import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { Condition, int32, ObjectMeta } from '@operant/runtime';
export interface Kind${i}Spec {
  // +kubebuilder:validation:Minimum=0
  replicas?: int32;
  // +kubebuilder:validation:MaxLength=63
  name: string;
  template: PodTemplateSpec;
}
export interface Kind${i}Status {
  // +listType=map
  // +listMapKey=type
  conditions?: Condition[];
}
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
export interface Kind${i} { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec: Kind${i}Spec; status?: Kind${i}Status }
`,
    );
  }
}

export function codegenSection(workDir: string, rounds: number, log: Log): Row[] {
  const floor: number[] = [];
  const measure = (name: string, cwd: string): number[] => {
    const times: number[] = [];
    for (let r = 0; r < rounds; r++) {
      floor.push(timedOperant(['--help'], cwd));
      times.push(timedOperant(['generate'], cwd));
    }
    log(`codegen ${name}: ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
    return times;
  };
  const cronjob = join(workDir, 'codegen-cronjob');
  cpSync(join(process.cwd(), 'packages', 'codegen', 'test', 'fixtures', 'cronjob', 'src'), join(cronjob, 'src'), { recursive: true });
  const rows: Row[] = [row('generate: CronJob tutorial (wall)', measure('cronjob', cronjob), floor, fmt.ms, 'operant --help')];
  for (const n of [1, 5, 20]) {
    const dir = join(workDir, `codegen-${n}`);
    kindsProject(dir, n);
    const times = measure(`${n} kinds`, dir);
    rows.push(row(`generate: ${n} kind${n > 1 ? 's' : ''} (wall)`, times, floor, fmt.ms, 'operant --help', n === 20 ? '< 2 s' : '', n === 20 ? (v) => v < 2000 : undefined));
  }
  return rows;
}
