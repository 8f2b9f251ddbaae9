/**
 * Checks on type-checked cel-js expression trees that cel-js does not make itself
 * but cel-go does, and simple queries (which variables an expression uses).
 */
import type { CelDecl } from './decl-types.js';
import { celIssue } from './go-format.js';

interface AstNode {
  op: string;
  args: unknown;
  start?: number;
  checkedType?: { name: string };
}

function isAstNode(v: unknown): v is AstNode {
  return typeof v === 'object' && v !== null && typeof (v as { op?: unknown }).op === 'string' && 'args' in v;
}

function walkAst(root: unknown, f: (n: AstNode) => void): void {
  const seen = new Set<unknown>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
      return;
    }
    if (!isAstNode(v) || seen.has(v)) return;
    seen.add(v);
    f(v);
    if (v.op === 'value' || v.op === 'id') return;
    if (v.op === '.' || v.op === '.?') return visit((v.args as unknown[])[0]);
    if (v.op === 'call') return visit((v.args as unknown[])[1]);
    if (v.op === 'rcall') return visit((v.args as unknown[]).slice(1));
    visit(v.args);
  };
  visit(root);
}

/**
 * cel-go rejects selecting an undeclared field even under `has()` and `.?`; cel-js does
 * not (it does not type-check the selections inside `has()`), so they are checked here
 * by following the selections from their variable's declaration.
 */
export function undeclaredFieldIssue(source: string, ast: unknown, records: ReadonlyMap<string, CelDecl>): string | undefined {
  let issue: string | undefined;
  const declOf = (n: AstNode): CelDecl | undefined => {
    if (n.op === '.' || n.op === '.?') {
      const [operand, field] = n.args as [AstNode, string];
      const d = declOf(operand);
      if (d?.kind === 'object') return d.fieldsByCelName.get(field)?.decl;
      if (d?.kind === 'map') return d.value;
      return undefined;
    }
    return n.checkedType ? records.get(n.checkedType.name.replace(/^optional<(.*)>$/, '$1')) : undefined;
  };
  const check = (sel: AstNode): void => {
    const [operand, field] = sel.args as [AstNode, string];
    if (issue === undefined && (operand.op === '.' || operand.op === '.?')) check(operand);
    if (issue !== undefined) return;
    const decl = declOf(operand);
    if (decl?.kind === 'object' && !decl.fieldsByCelName.has(field)) {
      let dot = (sel.start ?? 0) - 1;
      while (dot > 0 && /\s/.test(source[dot])) dot--;
      if (source[dot] === '?') dot--;
      issue = celIssue(source, source[dot] === '.' ? dot : (sel.start ?? 0), `undefined field '${field}'`);
    }
  };
  walkAst(ast, (n) => {
    if (issue !== undefined) return;
    if (n.op === 'call' && (n.args as unknown[])[0] === 'has') {
      const arg = ((n.args as unknown[])[1] as unknown[])[0];
      if (isAstNode(arg) && (arg.op === '.' || arg.op === '.?')) check(arg);
    } else if (n.op === '.?') {
      check(n);
    }
  });
  return issue;
}

/** Whether the expression refers to variable `name`. */
export function usesVariable(ast: unknown, name: string): boolean {
  let found = false;
  walkAst(ast, (n) => {
    if (n.op === 'id' && n.args === name) found = true;
  });
  return found;
}
