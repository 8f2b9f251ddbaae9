/**
 * Reads the user's TypeScript API files into the {@link Universe}. Only syntax
 * is read (no type checker), which keeps a run fast and the rules plain:
 * interfaces and type aliases become declarations; a type name resolves to a
 * declaration in the same file, one imported from a relative module, a Go type
 * alias exported by Operant (`int32`, `Time`, `Quantity`, `ObjectMeta`, ...), or a
 * Kubernetes type imported from `kubernetes-types`.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import { CodegenError, type SourcePosition } from '../errors.js';
import type { MarkerRegistry } from '../markers/registry.js';
import type { Declaration, Field, PackageInfo, TypeExpr, Universe } from '../model.js';
import { nodeComments, rawMarkers, type CommentLine } from './comments.js';
import { goTypeOfOperantAlias, goPackageOfKubernetesTypes } from './known-imports.js';

interface ImportedName {
  module: string;
  name: string;
}

interface FileContext {
  sf: ts.SourceFile;
  /** The path shown in errors (relative to the working directory). */
  display: string;
  abs: string;
  imports: Map<string, ImportedName>;
  locals: Set<string>;
  pkg: PackageInfo;
}

/** Where a declaration of the user's lives: `file#Name`. */
export function localId(absFile: string, name: string): string {
  return `${absFile}#${name}`;
}

/**
 * Parses the given files into the universe. Package markers (`+groupName`) are
 * the markers that are not part of a declaration's comments, in any file of a
 * directory (by convention `groupversion-info.ts`).
 */
export function readTypeScriptFiles(files: readonly string[], universe: Universe, registry: MarkerRegistry, cwd: string): void {
  const contexts: FileContext[] = [];
  for (const file of files) {
    const abs = resolve(cwd, file);
    const display = relative(cwd, abs) || abs;
    const sf = ts.createSourceFile(abs, readFileSync(abs, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const dir = dirname(abs);
    let pkg = universe.packages.get(dir);
    if (!pkg) universe.packages.set(dir, (pkg = { id: dir, markers: registry.collect([], 'package', true) }));
    const ctx: FileContext = { sf, display, abs, imports: new Map(), locals: new Set(), pkg };
    for (const stmt of sf.statements) {
      if (ts.isImportDeclaration(stmt)) recordImports(stmt, ctx);
      else if (ts.isInterfaceDeclaration(stmt) || ts.isTypeAliasDeclaration(stmt)) ctx.locals.add(stmt.name.text);
    }
    contexts.push(ctx);
  }
  // Package markers first: a kind's group comes from its package.
  for (const ctx of contexts) {
    const lines = packageCommentLines(ctx.sf);
    const found = registry.collect(rawMarkers(lines, ctx.display), 'package', true);
    ctx.pkg.markers = ctx.pkg.markers.concat(found);
  }
  for (const ctx of contexts) {
    for (const stmt of ctx.sf.statements) {
      if (ts.isInterfaceDeclaration(stmt)) universe.add(readInterface(stmt, ctx, registry));
      else if (ts.isTypeAliasDeclaration(stmt)) universe.add(readTypeAlias(stmt, ctx, registry));
      else if (ts.isEnumDeclaration(stmt)) {
        throw errorAtNode(ctx, stmt, `enum ${stmt.name.text}: use a union of string literals ('A' | 'B'), which becomes a schema enum`);
      } else if (ts.isClassDeclaration(stmt) && hasMarkers(ctx, stmt)) {
        throw errorAtNode(ctx, stmt, `class ${stmt.name?.text ?? ''}: API types are interfaces or type aliases, not classes`);
      }
    }
  }
}

function hasMarkers(ctx: FileContext, node: ts.Node): boolean {
  return nodeComments(ctx.sf, node).doc.some((l) => l.text.trimStart().startsWith('+'));
}

/** Comment lines in the file that belong to no declaration: the file's own markers. */
function packageCommentLines(sf: ts.SourceFile): CommentLine[] {
  const out: CommentLine[] = [];
  for (const stmt of sf.statements) {
    const c = nodeComments(sf, stmt);
    out.push(...c.others);
    // Without a following declaration of the API, a detached group and even the "doc" of an import are file-level.
    const isApiDecl = ts.isInterfaceDeclaration(stmt) || ts.isTypeAliasDeclaration(stmt);
    if (!isApiDecl) out.push(...c.doc, ...c.detachedMarkers);
    // RBAC and webhook markers often stand above a reconciler's or handler's method.
    if (ts.isClassDeclaration(stmt)) {
      for (const member of stmt.members) {
        const m = nodeComments(sf, member);
        out.push(...m.others, ...m.detachedMarkers, ...m.doc);
      }
    }
  }
  // Comments after the last statement.
  const tail = ts.getLeadingCommentRanges(sf.text, sf.endOfFileToken.pos);
  if (tail) out.push(...nodeComments(sf, sf.endOfFileToken).doc, ...nodeComments(sf, sf.endOfFileToken).others);
  return out;
}

function recordImports(stmt: ts.ImportDeclaration, ctx: FileContext): void {
  if (!ts.isStringLiteral(stmt.moduleSpecifier)) return;
  const module = stmt.moduleSpecifier.text;
  const bindings = stmt.importClause?.namedBindings;
  if (bindings && ts.isNamedImports(bindings)) {
    for (const el of bindings.elements) ctx.imports.set(el.name.text, { module, name: (el.propertyName ?? el.name).text });
  }
}

function position(ctx: FileContext, node: ts.Node): SourcePosition {
  const { line, character } = ctx.sf.getLineAndCharacterOfPosition(node.getStart(ctx.sf));
  return { file: ctx.display, line: line + 1, col: character + 1 };
}

function errorAtNode(ctx: FileContext, node: ts.Node, message: string): CodegenError {
  const p = position(ctx, node);
  return new CodegenError(message, p.file, p.line, p.col);
}

function docText(lines: readonly CommentLine[]): string[] {
  return lines.map((l) => l.text);
}

function readInterface(decl: ts.InterfaceDeclaration, ctx: FileContext, registry: MarkerRegistry): Declaration {
  return declaration(decl, decl.name.text, nodeComments(ctx.sf, decl), ctx, registry, () => {
    const fields: Field[] = [];
    for (const clause of decl.heritageClauses ?? []) {
      for (const t of clause.types) {
        if (t.typeArguments?.length) throw errorAtNode(ctx, t, 'an extended interface cannot take type arguments');
        if (!ts.isIdentifier(t.expression)) throw errorAtNode(ctx, t, 'extend an interface by its plain name');
        // Markers above `extends X` apply to the inlined X, as markers on Go's embedded field do
        // (`+kubebuilder:validation:Schemaless` on an embedded corev1.Container, say).
        const lines = [...nodeComments(ctx.sf, clause).doc, ...(t === clause.types[0] ? [] : nodeComments(ctx.sf, t).doc)];
        fields.push({
          name: '',
          inline: true,
          optionalBySyntax: false,
          doc: [],
          markers: registry.collect(rawMarkers(lines, ctx.display), 'field', true),
          type: resolveName(t.expression.text, t, ctx),
          pos: position(ctx, t),
        });
      }
    }
    const body = readMembers(decl.members, ctx, registry);
    if (body.kind !== 'struct') {
      if (fields.length > 0) throw errorAtNode(ctx, decl, 'an interface with an index signature cannot extend others');
      return body;
    }
    return { kind: 'struct', fields: [...fields, ...body.fields] };
  });
}

function readTypeAlias(decl: ts.TypeAliasDeclaration, ctx: FileContext, registry: MarkerRegistry): Declaration {
  if (decl.typeParameters?.length) throw errorAtNode(ctx, decl, `type ${decl.name.text}: generic types cannot become schemas`);
  return declaration(decl, decl.name.text, nodeComments(ctx.sf, decl), ctx, registry, () => convertType(decl.type, ctx, registry));
}

/**
 * A declaration whose type is read on first use: only the types a kind reaches
 * must be API types, so other interfaces in the same files (options, handlers)
 * never raise errors.
 */
function declaration(
  node: ts.Node,
  name: string,
  comments: ReturnType<typeof nodeComments>,
  ctx: FileContext,
  registry: MarkerRegistry,
  readType: () => TypeExpr,
): Declaration {
  const markers = registry.collect(rawMarkers([...comments.detachedMarkers, ...comments.doc], ctx.display), 'type', true);
  let type: TypeExpr | undefined;
  return {
    id: localId(ctx.abs, name),
    name,
    pkg: ctx.pkg,
    doc: docText(comments.doc),
    markers,
    get type(): TypeExpr {
      return (type ??= readType());
    },
    pos: position(ctx, node),
    local: true,
  };
}

/** Members of an interface or type literal: a struct, or a map when there is only an index signature. */
function readMembers(members: ts.NodeArray<ts.TypeElement>, ctx: FileContext, registry: MarkerRegistry): TypeExpr {
  const fields: Field[] = [];
  let index: TypeExpr | undefined;
  for (const m of members) {
    if (ts.isIndexSignatureDeclaration(m)) {
      const key = m.parameters[0]?.type;
      if (!key || key.kind !== ts.SyntaxKind.StringKeyword) throw errorAtNode(ctx, m, 'index signatures must have string keys');
      index = convertType(m.type, ctx, registry);
      continue;
    }
    if (ts.isMethodSignature(m) || ts.isCallSignatureDeclaration(m) || ts.isConstructSignatureDeclaration(m)) {
      throw errorAtNode(ctx, m, 'methods cannot be part of an API type: a schema describes data only');
    }
    if (!ts.isPropertySignature(m) || !m.type) throw errorAtNode(ctx, m, 'every property of an API type needs a type');
    const name = propertyName(m.name, ctx);
    const comments = nodeComments(ctx.sf, m);
    fields.push({
      name,
      inline: false,
      optionalBySyntax: m.questionToken !== undefined,
      doc: docText(comments.doc),
      markers: registry.collect(rawMarkers(comments.doc, ctx.display), 'field', true),
      type: convertType(m.type, ctx, registry),
      pos: position(ctx, m),
    });
  }
  if (index) {
    if (fields.length > 0) throw errorAtNode(ctx, members[0], 'a type cannot mix properties and an index signature: a schema is either an object with properties or a map');
    return { kind: 'map', elem: index };
  }
  return { kind: 'struct', fields };
}

function propertyName(name: ts.PropertyName, ctx: FileContext): string {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name)) return name.text;
  throw errorAtNode(ctx, name, 'property names must be identifiers or string literals');
}

/** Converts a type node. */
function convertType(node: ts.TypeNode, ctx: FileContext, registry: MarkerRegistry): TypeExpr {
  switch (node.kind) {
    case ts.SyntaxKind.StringKeyword:
      return { kind: 'scalar', name: 'string' };
    case ts.SyntaxKind.NumberKeyword:
      return { kind: 'scalar', name: 'number' };
    case ts.SyntaxKind.BooleanKeyword:
      return { kind: 'scalar', name: 'bool' };
    case ts.SyntaxKind.UnknownKeyword:
      return { kind: 'unknown', pos: position(ctx, node) };
    case ts.SyntaxKind.AnyKeyword:
      throw errorAtNode(ctx, node, "'any' cannot be made structural: use a concrete type, or 'unknown' with +kubebuilder:pruning:PreserveUnknownFields, or RawExtension");
    case ts.SyntaxKind.ObjectKeyword:
      throw errorAtNode(ctx, node, "'object' says nothing about the fields: declare an interface, or use Record<string, T>");
  }
  if (ts.isParenthesizedTypeNode(node)) return convertType(node.type, ctx, registry);
  if (ts.isArrayTypeNode(node)) return { kind: 'array', elem: convertType(node.elementType, ctx, registry) };
  if (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.ReadonlyKeyword) return convertType(node.type, ctx, registry);
  if (ts.isTypeLiteralNode(node)) return readMembers(node.members, ctx, registry);
  if (ts.isLiteralTypeNode(node)) return literalEnum([node], ctx);
  if (ts.isUnionTypeNode(node)) return convertUnion(node, ctx, registry);
  if (ts.isTypeReferenceNode(node)) return convertReference(node, ctx, registry);
  if (ts.isFunctionTypeNode(node) || ts.isConstructorTypeNode(node)) throw errorAtNode(ctx, node, 'functions cannot be part of an API type');
  if (ts.isTupleTypeNode(node)) throw errorAtNode(ctx, node, 'tuples cannot be made structural: use an array of one type');
  if (ts.isIntersectionTypeNode(node)) throw errorAtNode(ctx, node, 'intersections cannot be made structural: declare an interface that extends the parts');
  throw errorAtNode(ctx, node, `this type cannot become a schema: ${node.getText(ctx.sf)}`);
}

function convertReference(node: ts.TypeReferenceNode, ctx: FileContext, registry: MarkerRegistry): TypeExpr {
  const name = ts.isIdentifier(node.typeName) ? node.typeName.text : undefined;
  const args = node.typeArguments ?? [];
  if (name === 'Array' || name === 'ReadonlyArray') {
    if (args.length !== 1) throw errorAtNode(ctx, node, `${name} takes one type argument`);
    return { kind: 'array', elem: convertType(args[0], ctx, registry) };
  }
  if (name === 'Record') {
    if (args.length !== 2 || args[0].kind !== ts.SyntaxKind.StringKeyword) throw errorAtNode(ctx, node, 'maps must be Record<string, T>');
    return { kind: 'map', elem: convertType(args[1], ctx, registry) };
  }
  if (!name) throw errorAtNode(ctx, node, `qualified names are not supported here: import ${node.typeName.getText(ctx.sf)} by name`);
  if (args.length > 0) throw errorAtNode(ctx, node, `generic type ${name}<...> cannot become a schema`);
  return resolveName(name, node, ctx);
}

function resolveName(name: string, node: ts.Node, ctx: FileContext): TypeExpr {
  const pos = position(ctx, node);
  if (ctx.locals.has(name)) return { kind: 'ref', id: localId(ctx.abs, name), pos };
  const imported = ctx.imports.get(name);
  if (!imported) throw errorAtNode(ctx, node, `cannot find type ${name}: declare it in this file or import it`);
  if (imported.module.startsWith('.')) {
    const target = resolve(dirname(ctx.abs), imported.module).replace(/\.js$/, '.ts');
    return { kind: 'ref', id: localId(target.endsWith('.ts') ? target : `${target}.ts`, imported.name), pos };
  }
  const operant = goTypeOfOperantAlias(imported.module, imported.name);
  if (operant) return operant.kind === 'ref' ? { ...operant, pos } : operant;
  const goPkg = goPackageOfKubernetesTypes(imported.module);
  if (goPkg) return { kind: 'ref', id: `${goPkg}.${imported.name}`, pos };
  throw errorAtNode(ctx, node, `type ${name} from ${JSON.stringify(imported.module)} has no schema: import API types from relative files, @operant/runtime or kubernetes-types`);
}

function literalEnum(nodes: readonly ts.LiteralTypeNode[], ctx: FileContext): TypeExpr {
  const values: Array<string | number | boolean> = [];
  let base: 'string' | 'number' | 'bool' | undefined;
  for (const n of nodes) {
    const lit = n.literal;
    let value: string | number | boolean;
    let kind: 'string' | 'number' | 'bool';
    if (ts.isStringLiteral(lit) || ts.isNoSubstitutionTemplateLiteral(lit)) [value, kind] = [lit.text, 'string'];
    else if (ts.isNumericLiteral(lit)) [value, kind] = [Number(lit.text), 'number'];
    else if (ts.isPrefixUnaryExpression(lit) && ts.isNumericLiteral(lit.operand)) [value, kind] = [-Number(lit.operand.text), 'number'];
    else if (lit.kind === ts.SyntaxKind.TrueKeyword || lit.kind === ts.SyntaxKind.FalseKeyword) [value, kind] = [lit.kind === ts.SyntaxKind.TrueKeyword, 'bool'];
    else throw errorAtNode(ctx, n, `literal type ${n.getText(ctx.sf)} cannot become an enum value`);
    if (base && base !== kind) throw errorAtNode(ctx, n, 'an enum mixes literal types: use literals of one type');
    base = kind;
    values.push(value);
  }
  if (base === 'bool' && values.length === 2 && values[0] !== values[1]) return { kind: 'scalar', name: 'bool' };
  return { kind: 'enum', base: base ?? 'string', values };
}

function convertUnion(node: ts.UnionTypeNode, ctx: FileContext, registry: MarkerRegistry): TypeExpr {
  let nullable = false;
  const rest: ts.TypeNode[] = [];
  for (const t of node.types) {
    if (t.kind === ts.SyntaxKind.UndefinedKeyword) continue;
    if (ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword) nullable = true;
    else rest.push(t);
  }
  let inner: TypeExpr;
  if (rest.length === 0) throw errorAtNode(ctx, node, 'a type of only null and undefined cannot become a schema');
  if (rest.length === 1) inner = convertType(rest[0], ctx, registry);
  else if (rest.every((t) => ts.isLiteralTypeNode(t))) inner = literalEnum(rest as ts.LiteralTypeNode[], ctx);
  else throw errorAtNode(ctx, node, 'a union of different types cannot be made structural: unions may only join literals of one type (an enum), null and undefined');
  return nullable ? { kind: 'nullable', elem: inner } : inner;
}
