import assert from 'node:assert/strict';
import { it } from 'node:test';
import { canonicalQuantity } from './canonical.js';

// k8s.io/apimachinery v0.32.1 pkg/api/resource/quantity_test.go, TestQuantityString: each
// canonical form parses back to itself, and its alternate spelling canonicalizes to it.
const canonicalWithAlternate: Array<[string, string]> = [
  ['1Gi', '1024Mi'],
  ['300Mi', '307200Ki'],
  ['6Ki', ''],
  ['1001Gi', '1025024Mi'],
  ['1Ti', '1024Gi'],
  ['5', '5000m'],
  ['500m', '0.5'],
  ['1G', '1000M'],
  ['1G', '0.001T'],
  ['1m', '1000u'],
  ['80m', ''],
  ['1080m', '1.08'],
  ['1080m', '1080000000n'],
  ['300M', ''],
  ['1T', ''],
  ['1234567M', ''],
  ['1234567m', ''],
  ['3k', ''],
  ['1025', ''],
  ['0', '00'],
  ['1e9', '.001e12'],
  ['1e-3', '0.001e0'],
  ['1e-9', '1000e-12'],
  ['80e-3', ''],
  ['300e6', ''],
  ['3e3', ''],
  ['1n', ''],
  ['1080n', ''],
  ['1u', ''],
  ['1080u', ''],
];

// TestQuantityParseEmit.
const parseEmit: Array<[string, string]> = [
  ['1Ki', '1Ki'],
  ['1Mi', '1Mi'],
  ['1024Mi', '1Gi'],
  ['1000M', '1G'],
  ['.001Ki', '1024m'],
  ['.000001Ki', '1024u'],
  ['.000000001Ki', '1024n'],
  ['.000000000001Ki', '2n'],
];

for (const [canonical, alternate] of canonicalWithAlternate) {
  it(`${canonical} stays ${canonical}${alternate ? `, and ${alternate} becomes it` : ''}`, () => {
    assert.equal(canonicalQuantity(canonical), canonical);
    if (canonical !== '0') assert.equal(canonicalQuantity(`-${canonical}`), `-${canonical}`);
    if (alternate) assert.equal(canonicalQuantity(alternate), canonical);
  });
}

for (const [input, want] of parseEmit) {
  it(`${input} is written ${want}`, () => {
    assert.equal(canonicalQuantity(input), want);
    assert.equal(canonicalQuantity(`-${input}`), `-${want}`);
  });
}

it('a JSON number is read as its decimal text', () => {
  assert.equal(canonicalQuantity(0.5), '500m');
  assert.equal(canonicalQuantity(1000), '1k');
});

it('resource lists are rounded up to a thousandth (SetDefaults_ResourceList)', () => {
  assert.equal(canonicalQuantity('0.0001', { roundToMilli: true }), '1m');
  assert.equal(canonicalQuantity('1100100u', { roundToMilli: true }), '1101m');
  assert.equal(canonicalQuantity('2Gi', { roundToMilli: true }), '2Gi');
});

it('what is no quantity throws kube\'s parse error', () => {
  assert.throws(() => canonicalQuantity('lots'), /quantities must match the regular expression/);
});

// What the SidecarSet example's hash relies on (its containers' resources, as Go writes them back).
it('quantity_test.go TestJSONWhitespace: spaces around a string, and JSON numbers', () => {
  for (const [input, expected] of [[' 1', '1'], ['1 ', '1'], [1, '1'], [10, '10'], [-1, '-1'], [' -1', '-1']] as const) {
    assert.equal(canonicalQuantity(input), expected);
  }
});

it('canonical text is kept, other text rewritten from its exact value', () => {
  const table: Array<[string, string]> = [
    ['0.5', '500m'],
    ['1000m', '1'],
    ['0.1', '100m'],
    ['1.5Gi', '1536Mi'],
    ['1e3', '1e3'],
    ['1000e0', '1e3'],
    ['0.0', '0'],
    ['2000', '2k'],
  ];
  for (const [input, expected] of table) assert.equal(canonicalQuantity(input), expected, input);
});

it('rounding up to milli units (TestQuantityRoundUp at scale -3)', () => {
  for (const [input, expected] of [['9.01', '9010m'], ['-9.01', '-9010m'], ['1n', '1m'], ['1.5m', '2m'], ['100Mi', '100Mi'], ['250m', '250m']]) {
    assert.equal(canonicalQuantity(input!, { roundToMilli: true }), expected, input);
  }
  assert.throws(() => canonicalQuantity('1Ki5'));
  assert.throws(() => canonicalQuantity(''));
});
