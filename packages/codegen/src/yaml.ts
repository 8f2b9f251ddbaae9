/**
 * YAML as controller-gen writes it (sigs.k8s.io/yaml over go-yaml): a `---`
 * document start, and map keys in go-yaml's order, where a run of digits
 * compares as a number and non-letters sort before letters.
 */
import { Document, isMap, isScalar, visit, type Pair } from 'yaml';

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

function keyOf(pair: Pair): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
}

/** One or more objects as a multi-document YAML stream, each document starting with `---`. */
export function toYaml(objects: readonly unknown[]): string {
  return objects
    .map((obj) => {
      const doc = new Document(obj, { version: '1.1' });
      visit(doc, {
        Map(_, node) {
          if (isMap(node)) node.items.sort((x, y) => (goYamlKeyLess(keyOf(x), keyOf(y)) ? -1 : goYamlKeyLess(keyOf(y), keyOf(x)) ? 1 : 0));
        },
      });
      return `---\n${doc.toString({ lineWidth: 0, indentSeq: false })}`;
    })
    .join('');
}
