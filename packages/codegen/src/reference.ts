/**
 * The marker reference for users, generated from the registry, so it always
 * lists exactly the markers the generator reads, with their arguments.
 */
import { argTypeName } from './markers/arguments.js';
import { markerRegistry } from './markers/all.js';
import type { MarkerDefinition } from './markers/definition.js';

function usage(def: MarkerDefinition): string {
  if (def.anonymous) return `+${def.name}=<${argTypeName(def.anonymous.type)}>`;
  const args = Object.entries(def.args ?? {});
  if (args.length === 0) return `+${def.name}`;
  return `+${def.name}:${args.map(([n, s]) => `${n}=<${argTypeName(s.type)}>`).join(',')}`;
}

/** The reference as Markdown. */
export function markerReference(): string {
  const byCategory = new Map<string, MarkerDefinition[]>();
  for (const def of markerRegistry().definitions()) byCategory.set(def.category, [...(byCategory.get(def.category) ?? []), def]);
  const out = [
    '# Marker reference',
    '',
    'Generated from the generator\'s marker registry (`packages/codegen/scripts/write-marker-reference.ts`). Markers are comment lines',
    'starting with `+`, in `//` or `/** */` comments, above the type, field or file they describe.',
    '',
  ];
  for (const [category, defs] of byCategory) {
    out.push(`## ${category}`, '');
    for (const def of defs) {
      out.push(`### \`${usage(def)}\``, '', `On: ${def.targets.join(', ')}. ${def.help}`, '');
      const args = Object.entries(def.args ?? {});
      if (args.length > 0) {
        out.push('| argument | type | optional | meaning |', '|---|---|---|---|');
        for (const [name, spec] of args) out.push(`| \`${name}\` | ${argTypeName(spec.type)} | ${spec.optional ? 'yes' : 'no'} | ${spec.help ?? ''} |`);
        out.push('');
      }
    }
  }
  return `${out.join('\n')}\n`;
}
