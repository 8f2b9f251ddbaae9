/**
 * YAML as controller-gen writes it (sigs.k8s.io/yaml over go-yaml): a `---`
 * document start, and map keys in go-yaml's order, where a run of digits
 * compares as a number and non-letters sort before letters.
 */
import { stringify } from 'yaml';

function runeClass(c: string): 'letter' | 'other' {
  return /\p{L}/u.test(c) ? 'letter' : 'other';
}

/** go-yaml's keyList.Less for string keys. */
export function goYamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = runeClass(ar[i]) === 'letter';
    const bl = runeClass(br[i]) === 'letter';
    if (al && bl) return ar[i] < br[i];
    if (al || bl) return bl;
    const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; isDigit(ar[ai]); ai++) an = an * 10 + Number(ar[ai]);
    for (; isDigit(br[bi]); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i] < br[i];
  }
  return ar.length < br.length;
}

/** A copy with every map's keys in go-yaml's order (JS objects keep insertion order for string keys). */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).sort((x, y) => (goYamlKeyLess(x, y) ? -1 : goYamlKeyLess(y, x) ? 1 : 0));
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = sortKeys(v);
  }
  return out;
}

/** One or more objects as a multi-document YAML stream, each document starting with `---`. */
export function toYaml(objects: readonly unknown[]): string {
  return objects.map((obj) => `---\n${stringify(sortKeys(obj), { version: '1.1', lineWidth: 0, indentSeq: false })}`).join('');
}
