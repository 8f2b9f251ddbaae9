/**
 * Changes under src/ that should restart the dev loop: TypeScript sources, not
 * the generated kinds modules (which the loop itself writes), gathered over a
 * short quiet period so one save of several files restarts once.
 */
import { watch, type FSWatcher } from 'node:fs';

export function watchSources(dir: string, onChange: (files: string[]) => void, quietMs = 150): FSWatcher {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  return watch(dir, { recursive: true }, (_event, file) => {
    const name = file?.toString() ?? '';
    if (!name.endsWith('.ts') || name.split('/').pop()!.startsWith('zz_generated')) return;
    pending.add(name);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...pending].sort();
      pending = new Set();
      onChange(files);
    }, quietMs);
  });
}
