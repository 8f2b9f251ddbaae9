/**
 * Edits of the scaffolded src/main.ts at kubebuilder's scaffold markers: an
 * import after `+kubebuilder:scaffold:imports`, a setup function before
 * `+kubebuilder:scaffold:builder` (controllers) or `+kubebuilder:scaffold:webhook`.
 */
import { ScaffoldError } from './project-files.js';

export const MAIN = 'src/main.ts';

function insertBefore(text: string, anchor: string, line: string, what: string): string {
  const at = text.indexOf(anchor);
  if (at < 0) throw new ScaffoldError(`${MAIN}: the marker "${anchor.trim()}" is gone; add ${what} by hand`);
  const lineStart = text.lastIndexOf('\n', at) + 1;
  const indent = text.slice(lineStart, at);
  return `${text.slice(0, lineStart)}${indent}${line}\n${text.slice(lineStart)}`;
}

/** Adds `import { names } from 'from';` (before the imports marker) and `setup,` to a list. */
export function registerInMain(text: string, imported: { names: string[]; from: string }, list: 'builder' | 'webhook', setup: string): string {
  if (text.includes(`${setup},`)) return text;
  return insertBefore(addImport(text, imported), `// +kubebuilder:scaffold:${list}`, `${setup},`, `${setup} to the ${list === 'builder' ? 'controllers' : 'webhooks'} list`);
}

/** Adds the names to an existing `import { ... } from` the module, or a new import line before the marker. */
function addImport(text: string, imported: { names: string[]; from: string }): string {
  const escaped = imported.from.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const existing = new RegExp(`^import \\{ ([^}]*) \\} from '${escaped}';$`, 'm').exec(text);
  if (existing) {
    const names = [...new Set([...existing[1].split(',').map((n) => n.trim()), ...imported.names])];
    return text.replace(existing[0], `import { ${names.join(', ')} } from '${imported.from}';`);
  }
  return insertBefore(text, '// +kubebuilder:scaffold:imports', `import { ${imported.names.join(', ')} } from '${imported.from}';`, `the import of ${imported.names.join(', ')}`);
}
