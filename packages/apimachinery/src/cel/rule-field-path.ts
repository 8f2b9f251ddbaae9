/**
 * The `fieldPath` of a validation rule: a relative JSON path such as `.spec.replicas`
 * or `.labels['app.kubernetes.io/name']` that must name a field the schema declares
 * (kube's `ValidFieldPath`). It is normalized into a field path suffix.
 */
import type { OpenApiSchema } from '../openapi-schema.js';

function unescapeSingleQuoted(s: string): string {
  return s.replace(/\\(.)/g, (_m, c: string) => {
    switch (c) {
      case 'a':
        return '\x07';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'v':
        return '\v';
      case "'":
        return "'";
      case '\\':
        return '\\';
      default:
        throw new Error(`invalid string literal: invalid escape char \\${c}`);
    }
  });
}

function tokenize(path: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i];
    if (c === '.' || c === '[' || c === ']') {
      tokens.push(c);
      i++;
    } else if (c === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      tokens.push(path.slice(i, j + 1));
      i = j + 1;
    } else {
      let j = i;
      while (j < path.length && path[j] !== '.' && path[j] !== '[' && path[j] !== ']') j++;
      tokens.push(path.slice(i, j));
      i = j;
    }
  }
  return tokens;
}

/**
 * Validates `jsonPath` against `schema` and returns it as a field path suffix
 * (`spec.replicas`, `labels[app]`), or throws with kube's reason.
 */
export function normalizeRuleFieldPath(jsonPath: string, schema: OpenApiSchema): string {
  let out = '';
  let s: OpenApiSchema | undefined = schema;
  const append = (name: string): void => {
    if (s?.properties) {
      out = out === '' ? name : `${out}.${name}`;
      s = s.properties[name];
      if (!s) throw new Error('does not refer to a valid field');
    } else if (s?.additionalProperties !== undefined) {
      out = `${out}[${name}]`;
      s = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    } else {
      throw new Error('does not refer to a valid field');
    }
  };
  const tokens = tokenize(jsonPath);
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    if (tok === '[') {
      const quoted = tokens[++i];
      if (quoted === undefined) throw new Error('unexpected end of JSON path');
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) throw new Error(`expected single quoted string but got ${quoted}`);
      append(unescapeSingleQuoted(quoted.slice(1, -1)));
      const close = tokens[++i];
      if (close === undefined) throw new Error('unexpected end of JSON path');
      if (close !== ']') throw new Error(`expected ] but got ${close}`);
    } else if (tok === '.') {
      const name = tokens[++i];
      if (name === undefined) throw new Error('unexpected end of JSON path');
      append(name);
    } else {
      throw new Error(`expected [ or . but got: ${tok}`);
    }
  }
  return out;
}
