/**
 * The edits `create api` and `create webhook` make to files `init` wrote:
 * appending to a kustomization's resources list (found with the yaml parser,
 * written as a text splice so every comment and blank line stays as it was)
 * and uncommenting a block the template left commented, as kubebuilder does.
 */
import { isNode, isScalar, isSeq, parseDocument } from 'yaml';
import { ScaffoldError, type ProjectFiles } from '../project-files.js';

/** Stages a file unless it exists (kubebuilder's "skip if exists"). */
export function createIfMissing(files: ProjectFiles, path: string, content: string): void {
  if (!files.exists(path)) files.create(path, content);
}

/** Stages `edit` of an existing file, only if it changes the content; a missing file is an error. */
export function editFile(files: ProjectFiles, path: string, edit: (content: string) => string): void {
  const before = files.read(path);
  if (before === undefined) return files.update(path, edit);
  const after = edit(before);
  if (after !== before) files.put(path, after);
}

/** Adds `entries` to the resources of the kustomization at `path`, or creates it as `template(entries)`. */
export function addToKustomization(files: ProjectFiles, path: string, entries: string[], template: (entries: string[]) => string): void {
  if (files.exists(path)) editFile(files, path, addResources(path, entries));
  else files.create(path, template(entries));
}

/** The block with `#` before each line: how the templates leave an optional section. */
export function commented(block: string): string {
  return block
    .split('\n')
    .map((line) => `#${line}`)
    .join('\n');
}

/** An edit that uncomments `block` (given uncommented); nothing if it is already on. */
export function uncomment(path: string, block: string): (content: string) => string {
  return (content) => {
    const padded = `\n${content}\n`;
    if (padded.includes(`\n${commented(block)}\n`)) return padded.replace(`\n${commented(block)}\n`, () => `\n${block}\n`).slice(1, -1);
    if (padded.includes(`\n${block}\n`)) return content;
    throw new ScaffoldError(`${path}: found neither this section nor its commented form; add it by hand:\n${block}`);
  };
}

/**
 * An edit that appends the entries missing from the `resources:` list, with
 * `comment` (lines without `#`) before them unless the file already has it.
 */
export function addResources(path: string, entries: string[], comment?: string): (content: string) => string {
  return (content) => {
    const doc = parseDocument(content);
    if (doc.errors.length > 0) throw new ScaffoldError(`${path} is not valid YAML: ${doc.errors[0].message}`);
    const list = doc.get('resources', true);
    const present = isSeq(list) ? list.items.map((item) => (isScalar(item) ? String(item.value) : '')) : [];
    const missing = entries.filter((e) => !present.includes(e));
    if (missing.length === 0) return content;

    if (!isSeq(list) || list.flow || list.items.length === 0) {
      // No block list to append to (no key, `resources:` or `resources: []`): let the yaml library write one.
      if (list !== undefined && !isSeq(list) && !(isScalar(list) && list.value === null)) throw new ScaffoldError(`${path}: resources is not a list`);
      doc.set('resources', doc.createNode([...present, ...missing]));
      return doc.toString({ indentSeq: false });
    }
    // Splice the new lines in after the last entry, at its indentation.
    const last = list.items[list.items.length - 1];
    if (!isNode(last) || !last.range) throw new ScaffoldError(`${path}: cannot find the end of the resources list`);
    const [start, end] = last.range;
    const lineStart = content.lastIndexOf('\n', start) + 1;
    const indent = /^ */.exec(content.slice(lineStart))![0];
    const commentBlock = comment ? comment.split('\n').map((l) => `${indent}# ${l}`.trimEnd() + '\n').join('') : '';
    const lines = (content.includes(commentBlock) ? '' : commentBlock) + missing.map((e) => `${indent}- ${e}\n`).join('');
    const lineEnd = content.indexOf('\n', end);
    if (lineEnd === -1) return `${content}\n${lines}`;
    return content.slice(0, lineEnd + 1) + lines + content.slice(lineEnd + 1);
  };
}
