/**
 * Doc comments to descriptions, as controller-tools' extractDoc does: marker
 * lines are dropped, blank lines at the ends are trimmed and runs of them kept
 * as one paragraph break; outside fenced code blocks, lines starting with TODO
 * are skipped and a line starting with `---` ends the description (Kubernetes'
 * convention for comments meant for developers only).
 */
import type { JSONSchemaProps } from './props.js';

export function docString(lines: readonly string[]): string {
  const text = lines.filter((l) => !l.trimStart().startsWith('+')).map((l) => l.trimEnd());
  // Go's CommentGroup.Text(): no blank lines at either end, runs of blank lines become one.
  const trimmed: string[] = [];
  for (const line of text) {
    if (line === '' && (trimmed.length === 0 || trimmed[trimmed.length - 1] === '')) continue;
    trimmed.push(line);
  }
  while (trimmed.length > 0 && trimmed[trimmed.length - 1] === '') trimmed.pop();
  const out: string[] = [];
  let inCode = false;
  for (const line of trimmed) {
    if (line.startsWith('```') || line.startsWith('~~~')) inCode = !inCode;
    if (!inCode) {
      if (line.startsWith('TODO')) continue;
      if (line.startsWith('---')) break;
    }
    out.push(line);
  }
  return out.join('\n');
}

const SENTENCE_END = /[.!?。！？]/u;

/** Shortens a description to at most `max` characters, at a sentence or word boundary (controller-gen's maxDescLen). */
export function truncateDescription(desc: string, max: number): string {
  if (desc.length <= max) return desc;
  const cut = desc.slice(0, max);
  for (let i = cut.length - 1; i > 0; i--) if (SENTENCE_END.test(cut[i])) return cut.slice(0, i + 1);
  for (let i = cut.length - 1; i > 0; i--) if (/\s/u.test(cut[i])) return `${cut.slice(0, i)}...`;
  return `${cut}...`;
}

/** Applies maxDescLen to every description of a schema (0 removes them all). Returns how many were cut. */
export function limitDescriptions(schema: JSONSchemaProps, max: number): number {
  let cut = 0;
  const visit = (s: JSONSchemaProps): void => {
    if (s.description !== undefined) {
      if (max === 0) delete s.description;
      else if (s.description.length > max) {
        s.description = truncateDescription(s.description, max);
        cut++;
      }
    }
    for (const p of Object.values(s.properties ?? {})) visit(p);
    if (s.items) visit(s.items);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') visit(s.additionalProperties);
    for (const sub of [...(s.allOf ?? []), ...(s.anyOf ?? [])]) visit(sub);
  };
  visit(schema);
  return cut;
}
