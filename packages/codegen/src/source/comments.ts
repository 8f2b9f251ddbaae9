/**
 * Comments above a TypeScript declaration, split into groups the way Go's
 * parser groups comments: lines with no blank line between them form a group.
 * The group that ends right above a declaration is its doc comment; the group
 * before it, separated by a blank line, may carry more markers (controller-gen
 * reads that "second closest" group for types too).
 */
import ts from 'typescript';
import type { RawMarker } from '../markers/definition.js';

export interface CommentLine {
  text: string;
  /** 1-based line and column of the text's first character. */
  line: number;
  col: number;
}

export interface CommentGroup {
  lines: CommentLine[];
  /** 0-based line numbers of the group's first and last source lines. */
  startLine: number;
  endLine: number;
}

/** The text lines of one comment, with `//`, `/*`, `*` and one following space removed. */
function commentLines(sf: ts.SourceFile, range: ts.CommentRange): CommentLine[] {
  const raw = sf.text.slice(range.pos, range.end);
  const out: CommentLine[] = [];
  if (range.kind === ts.SyntaxKind.SingleLineCommentTrivia) {
    const { line, character } = sf.getLineAndCharacterOfPosition(range.pos);
    const body = raw.slice(2);
    const text = body.startsWith(' ') ? body.slice(1) : body;
    out.push({ text, line: line + 1, col: character + 1 + (raw.length - text.length) });
    return out;
  }
  const inner = raw.replace(/^\/\*\*?/, '').replace(/\*\/$/, '');
  let offset = range.pos + (raw.startsWith('/**') ? 3 : 2);
  const lines = inner.split('\n');
  lines.forEach((l, i) => {
    // Continuation lines lose their indentation and a leading `*`; every line loses one space.
    const prefix = (i === 0 ? /^ ?/ : /^\s*(?:\* ?)?/).exec(l)?.[0] ?? '';
    const text = l.slice(prefix.length).replace(/\r$/, '');
    const blank = text.trim() === '';
    // A block comment's first and last lines are often empty (`/**` and ` */`).
    if (!(blank && (i === 0 || i === lines.length - 1))) {
      const { line, character } = sf.getLineAndCharacterOfPosition(offset + prefix.length);
      out.push({ text, line: line + 1, col: character + 1 });
    }
    offset += l.length + 1;
  });
  return out;
}

/** The comment groups that lead a node, in source order. */
export function leadingCommentGroups(sf: ts.SourceFile, node: ts.Node): CommentGroup[] {
  const ranges = ts.getLeadingCommentRanges(sf.text, node.pos) ?? [];
  // A comment on the line where the previous token ends trails that token (`a?: string; // note`):
  // Go's parser gives it to the previous field, not to this one.
  const previousLine = node.pos > 0 ? sf.getLineAndCharacterOfPosition(node.pos).line : -1;
  const groups: CommentGroup[] = [];
  for (const range of ranges) {
    if (sf.getLineAndCharacterOfPosition(range.pos).line === previousLine) continue;
    const startLine = sf.getLineAndCharacterOfPosition(range.pos).line;
    const endLine = sf.getLineAndCharacterOfPosition(range.end).line;
    const last = groups[groups.length - 1];
    const lines = commentLines(sf, range);
    if (last && startLine <= last.endLine + 1) {
      last.lines.push(...lines);
      last.endLine = endLine;
    } else groups.push({ lines, startLine, endLine });
  }
  return groups;
}

export interface NodeComments {
  /** The doc comment's lines (markers included). */
  doc: CommentLine[];
  /** Marker lines of the group before the doc comment, when a blank line separates them. */
  detachedMarkers: CommentLine[];
  /** Lines of every other leading group (for package markers). */
  others: CommentLine[];
}

/** Splits a node's leading comments into its doc comment and the groups before it. */
export function nodeComments(sf: ts.SourceFile, node: ts.Node): NodeComments {
  const groups = leadingCommentGroups(sf, node);
  const nodeLine = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
  const last = groups[groups.length - 1];
  const attached = last !== undefined && last.endLine >= nodeLine - 1;
  const doc = attached ? last.lines : [];
  const before = attached ? groups.slice(0, -1) : groups;
  const prev = before[before.length - 1];
  const detachedMarkers = prev ? prev.lines.filter((l) => isMarkerLine(l.text)) : [];
  const others = before.slice(0, -1).flatMap((g) => g.lines);
  return { doc, detachedMarkers, others };
}

export function isMarkerLine(text: string): boolean {
  return text.trimStart().startsWith('+');
}

/** The marker lines among comment lines, as raw markers of a file. */
export function rawMarkers(lines: readonly CommentLine[], file: string): RawMarker[] {
  return lines
    .filter((l) => isMarkerLine(l.text))
    .map((l) => {
      const lead = l.text.length - l.text.trimStart().length;
      return { text: l.text.trim(), file, line: l.line, col: l.col + lead };
    });
}
