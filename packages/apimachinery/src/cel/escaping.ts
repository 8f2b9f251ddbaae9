/**
 * Property names as CEL sees them. Kubernetes exposes an object property to CEL
 * under an escaped identifier (`foo-bar` becomes `foo__dash__bar`, `namespace`
 * becomes `__namespace__`); names that cannot be escaped are not accessible.
 */

/** Words reserved by the CEL grammar; a property with exactly this name is escaped to `__word__`. */
const reservedWords = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

const plainIdentifier = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const escapable = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;

/**
 * Escapes a property name into a CEL identifier, as Kubernetes does: `__` becomes
 * `__underscores__`, `.` `__dot__`, `-` `__dash__`, `/` `__slash__`, and a reserved word
 * `w` becomes `__w__`. Returns `undefined` when the name cannot be exposed to CEL
 * (empty, starting with a digit, or containing other characters).
 */
export function escapeCelName(name: string): string | undefined {
  if (name === '' || (name[0] >= '0' && name[0] <= '9')) return undefined;
  if (reservedWords.has(name)) return `__${name}__`;
  if (plainIdentifier.test(name) && !name.includes('__')) return name;
  if (!escapable.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (m) => {
    switch (m) {
      case '__':
        return '__underscores__';
      case '.':
        return '__dot__';
      case '-':
        return '__dash__';
      default:
        return '__slash__';
    }
  });
}
