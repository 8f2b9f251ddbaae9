import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { instrumentEnvironment, libraryEnvironment } from './libraries.js';
import { applyRuntimeOverrides } from './runtime-overrides.js';
import { Quantity } from './quantity.js';

/** Evaluates one expression the way compiled rules are evaluated (checked, with runtime overrides). */
function cel(expr: string, vars: Record<string, [type: string, value: unknown]> = {}): unknown {
  let env = libraryEnvironment().clone();
  for (const [name, [type]] of Object.entries(vars)) env = env.registerVariable(name, type);
  instrumentEnvironment(env);
  const program = env.parse(expr);
  const checked = program.check();
  if (!checked.valid) throw checked.error;
  applyRuntimeOverrides(program.ast);
  return program(Object.fromEntries(Object.entries(vars).map(([name, [, value]]) => [name, value]))) as unknown;
}

function celError(expr: string): string {
  try {
    cel(expr);
  } catch (e) {
    return (e as Error).message;
  }
  assert.fail(`expected ${expr} to fail`);
}

describe('strings extension', () => {
  it('charAt, indexOf, lastIndexOf', () => {
    assert.equal(cel("'hello'.charAt(1)"), 'e');
    assert.equal(cel("'hello'.charAt(5)"), '');
    assert.match(celError("'hello'.charAt(6)"), /index out of range: 6/);
    assert.equal(cel("'hello mellow'.indexOf('llo')"), 2n);
    assert.equal(cel("'hello mellow'.indexOf('llo', 3)"), 8n);
    assert.equal(cel("'hello mellow'.lastIndexOf('llo')"), 8n);
    assert.equal(cel("'hello'.indexOf('z')"), -1n);
  });

  it('lowerAscii and upperAscii change ASCII letters only', () => {
    assert.equal(cel("'TacoCat'.lowerAscii()"), 'tacocat');
    assert.equal(cel("'TacoCÆt'.lowerAscii()"), 'tacocÆt');
    assert.equal(cel("'tacoCat'.upperAscii()"), 'TACOCAT');
    assert.equal(cel("'tacoCæt'.upperAscii()"), 'TACOCæT');
  });

  it('replace, split, substring, trim, join', () => {
    assert.equal(cel("'hello hello'.replace('he', 'we')"), 'wello wello');
    assert.equal(cel("'hello hello'.replace('he', 'we', 1)"), 'wello hello');
    assert.equal(cel("'hello hello'.replace('he', 'we', 0)"), 'hello hello');
    assert.deepEqual(cel("'a,b,c'.split(',')"), ['a', 'b', 'c']);
    assert.deepEqual(cel("'a,b,c'.split(',', 2)"), ['a', 'b,c']);
    assert.equal(cel("'tacocat'.substring(4)"), 'cat');
    assert.equal(cel("'tacocat'.substring(0, 4)"), 'taco');
    assert.equal(cel("'  \\ttrim\\n  '.trim()"), 'trim');
    assert.equal(cel("['a', 'b'].join()"), 'ab');
    assert.equal(cel("['a', 'b'].join('-')"), 'a-b');
  });

  it('format and strings.quote', () => {
    assert.equal(cel("'%s has %d items, %.2f%% full'.format([dyn('box'), dyn(3), dyn(41.5)])"), 'box has 3 items, 41.50% full');
    assert.equal(cel("'%x %X %o %b'.format([255, 255, 8, 5])"), 'ff FF 10 101');
    assert.equal(cel("'%s'.format([[1, 2]])"), '[1, 2]');
    assert.match(celError("'%d'.format(['x'])"), /decimal clause can only be used on integers/);
    assert.equal(cel('strings.quote(\'a"b\\nc\')'), '"a\\"b\\nc"');
  });
});

describe('sets extension', () => {
  it('contains, equivalent, intersects', () => {
    assert.equal(cel('sets.contains([1, 2, 3], [3, 1])'), true);
    assert.equal(cel('sets.contains([1, 2], [4])'), false);
    assert.equal(cel('sets.equivalent([1, 2, 2], [2, 1])'), true);
    assert.equal(cel('sets.intersects([1, 2], [2, 5])'), true);
    assert.equal(cel('sets.intersects([1], [5])'), false);
  });
});

describe('Kubernetes lists library', () => {
  it('isSorted', () => {
    assert.equal(cel('[1, 2, 3].isSorted()'), true);
    assert.equal(cel("['a', 'b', 'b', 'c'].isSorted()"), true);
    assert.equal(cel('[2.0, 1.0].isSorted()'), false);
    assert.equal(cel('[].isSorted()'), true);
  });

  it('sum', () => {
    assert.equal(cel('[1, 3].sum()'), 4n);
    assert.equal(cel('[1.5, 3.0].sum()'), 4.5);
    assert.equal(cel('x.sum()', { x: ['list<int>', []] }), 0n);
    assert.equal(cel('x.sum()', { x: ['list<double>', []] }), 0);
    assert.equal(String(cel("[duration('1m'), duration('1s')].sum()")), '61s');
    assert.match(celError('[9223372036854775807, 1].sum()'), /integer overflow/);
  });

  it('min and max', () => {
    assert.equal(cel('[3, 1, 2].min()'), 1n);
    assert.equal(cel('[3, 1, 2].max()'), 3n);
    assert.equal(cel("['b', 'a'].min()"), 'a');
    assert.match(celError('dyn([]).map(i, 1).min()'), /min called on empty list/);
  });

  it('indexOf and lastIndexOf', () => {
    assert.equal(cel('[1, 2, 2, 3].indexOf(2)'), 1n);
    assert.equal(cel("['a', 'b', 'b', 'c'].lastIndexOf('b')"), 2n);
    assert.equal(cel('[1.0].indexOf(1.1)'), -1n);
  });
});

describe('Kubernetes regex library', () => {
  it('matches takes RE2 syntax', () => {
    assert.equal(cel("'Hello'.matches('(?i)^hello$')"), true);
    assert.equal(cel("'abc'.matches('^[[:alpha:]]+\\\\z')"), true);
    assert.equal(cel("matches('abc', 'b')"), true);
    assert.match(celError("'x'.matches('[')"), /error parsing regexp/);
  });

  it('find and findAll', () => {
    assert.equal(cel("'abc 123'.find('[0-9]+')"), '123');
    assert.equal(cel("'abc'.find('[0-9]+')"), '');
    assert.deepEqual(cel("'123 abc 456'.findAll('[0-9]+')"), ['123', '456']);
    assert.deepEqual(cel("'123 abc 456'.findAll('[0-9]+', 1)"), ['123']);
  });
});

describe('Kubernetes URL library', () => {
  it('url accessors', () => {
    assert.equal(cel("url('https://example.com:80/path').getScheme()"), 'https');
    assert.equal(cel("url('/path').getScheme()"), '');
    assert.equal(cel("url('https://example.com:80/').getHost()"), 'example.com:80');
    assert.equal(cel("url('https://[::1]:80/').getHost()"), '[::1]:80');
    assert.equal(cel("url('https://[::1]:80/').getHostname()"), '::1');
    assert.equal(cel("url('https://127.0.0.1:80/').getHostname()"), '127.0.0.1');
    assert.equal(cel("url('https://example.com:80/').getPort()"), '80');
    assert.equal(cel("url('https://example.com/').getPort()"), '');
    assert.equal(cel("url('https://example.com/path with spaces/').getEscapedPath()"), '/path%20with%20spaces/');
    assert.equal(cel("url('https://example.com').getEscapedPath()"), '');
    assert.deepEqual(cel("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()"), new Map([['k1', ['a']], ['k2', ['b', 'c']]]));
    assert.equal(cel("url('https://example.com/path?').getQuery().size()"), 0n);
  });

  it('isURL and parse errors', () => {
    assert.equal(cel("isURL('https://user:pass@example.com:80/path?query=val#fragment')"), true);
    assert.equal(cel("isURL('/absolute-path')"), true);
    assert.equal(cel("isURL('https://a:b:c/')"), false);
    assert.equal(cel("isURL('../relative-path')"), false);
    assert.equal(celError("url('../relative-path')"), 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request');
    assert.equal(celError("url('https://a:b:c/')"), 'URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host');
  });
});

describe('Kubernetes quantity library', () => {
  it('parses and compares', () => {
    assert.equal(cel("isQuantity('1.5Gi')"), true);
    assert.equal(cel("isQuantity('1.5Gb')"), false);
    assert.equal(cel("quantity('200M').compareTo(quantity('0.2G'))"), 0n);
    assert.equal(cel("quantity('50M').compareTo(quantity('50Mi'))"), -1n);
    assert.equal(cel("quantity('150Mi').isGreaterThan(quantity('100Mi'))"), true);
    assert.equal(cel("quantity('50M').isLessThan(quantity('100M'))"), true);
    assert.equal(cel("quantity('1') == quantity('1000m')"), true);
    assert.equal(cel("quantity('1') != quantity('1001m')"), true);
    assert.match(celError("quantity('abc')"), /quantities must match the regular expression/);
  });

  it('arithmetic and conversions', () => {
    assert.equal(cel("quantity('50k').add(quantity('20')) == quantity('50.02k')"), true);
    assert.equal(cel("quantity('50k').add(20) == quantity('50020')"), true);
    assert.equal(cel("quantity('50k').sub(quantity('20')) == quantity('49.98k')"), true);
    assert.equal(cel("quantity('50k').sub(20) == quantity('49980')"), true);
    assert.equal(cel("quantity('50k').isInteger()"), true);
    assert.equal(cel("quantity('9999999999999999999999999999999999999G').isInteger()"), false);
    assert.equal(cel("quantity('50k').asInteger()"), 50000n);
    assert.match(celError("quantity('1.5').asInteger()"), /cannot convert value to integer/);
    assert.equal(cel("quantity('50.703k').asApproximateFloat()"), 50703);
    assert.equal(cel("quantity('-50k').sign()"), -1n);
    assert.equal(cel("sign(quantity('0'))"), 0n);
  });

  it('keeps exact values', () => {
    assert.equal(Quantity.parse('1.5Ki').asInt64(), 1536n);
    assert.equal(Quantity.parse('100m').compare(Quantity.parse('0.1')), 0);
    assert.equal(Quantity.parse('1e3').asInt64(), 1000n);
    assert.throws(() => Quantity.parse('1Kx'), /unable to parse quantity's suffix|quantities must match/);
  });
});

describe('Kubernetes format library', () => {
  it('validates named formats', () => {
    assert.equal(cel("format.dns1123Label().validate('my-name').hasValue()"), false);
    assert.deepEqual(cel("format.dns1123Label().validate('My_Name').value()"), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.equal(cel("format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()"), false);
    assert.equal(cel("format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()"), false);
    assert.equal(cel("format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()"), false);
    assert.deepEqual(cel("format.uuid().validate('nope').value()"), ['does not match the UUID format']);
    assert.equal(cel("format.byte().validate('aGVsbG8=').hasValue()"), false);
    assert.equal(cel("format.date().validate('2021-01-01').hasValue()"), false);
    assert.equal(cel("format.datetime().validate('2021-01-01T00:00:00Z').hasValue()"), false);
    assert.equal(cel("format.uri().validate('http://example.com').hasValue()"), false);
    assert.equal(cel("format.named('labelValue').hasValue()"), true);
    assert.equal(cel("format.named('nope').hasValue()"), false);
    assert.equal(cel("format.named('qualifiedName').value().validate('example.com/name').hasValue()"), false);
  });
});

describe('Kubernetes IP and CIDR libraries', () => {
  it('parses addresses and answers questions about them', () => {
    assert.equal(cel("isIP('127.0.0.1')"), true);
    assert.equal(cel("isIP('127.0.0.256')"), false);
    assert.equal(cel("isIP(':::1')"), false);
    assert.equal(cel("isIP('010.0.0.1')"), false);
    assert.match(celError("ip('::ffff:1.2.3.4')"), /IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed/);
    assert.match(celError("ip('fe80::1%eth0')"), /with zone value is not allowed/);
    assert.equal(cel("ip('127.0.0.1').family()"), 4n);
    assert.equal(cel("ip('::1').family() == 6"), true);
    assert.equal(cel("ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified()"), true);
    assert.equal(cel("ip('127.0.0.1').isLoopback() && ip('::1').isLoopback() && !ip('2001:db8::abcd').isLoopback()"), true);
    assert.equal(cel("ip('224.0.0.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast()"), true);
    assert.equal(cel("ip('169.254.169.254').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast() && !ip('fd80::1').isLinkLocalUnicast()"), true);
    assert.equal(cel("ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()"), true);
    assert.equal(cel("ip.isCanonical('2001:db8::abcd')"), true);
    assert.equal(cel("ip.isCanonical('2001:DB8::ABCD')"), false);
    assert.equal(cel("ip.isCanonical('2001:db8::0:0:0:abcd')"), false);
    assert.equal(cel("string(ip('2001:db8:0:0:0::abcd'))"), '2001:db8::abcd');
    assert.equal(cel("ip('10.0.0.1') == ip('10.0.0.1')"), true);
  });

  it('parses prefixes and checks containment', () => {
    assert.equal(cel("isCIDR('192.168.0.0/24')"), true);
    assert.equal(cel("isCIDR('192.168.0.0')"), false);
    assert.equal(cel("isCIDR('192.168.0.0/33')"), false);
    assert.equal(cel("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))"), true);
    assert.equal(cel("cidr('192.168.0.0/24').containsIP('192.168.1.1')"), false);
    assert.equal(cel("cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))"), true);
    assert.equal(cel("cidr('192.168.0.0/24').containsCIDR('192.168.0.0/16')"), false);
    assert.equal(cel("cidr('2001:db8::/32').containsIP(ip('2001:db8::1'))"), true);
    assert.equal(cel("cidr('192.168.0.1/24').ip() == ip('192.168.0.1')"), true);
    assert.equal(cel("string(cidr('192.168.0.1/24').masked())"), '192.168.0.0/24');
    assert.equal(cel("cidr('192.168.0.0/24').prefixLength()"), 24n);
    assert.equal(cel("string(cidr('2001:db8::1/64'))"), '2001:db8::1/64');
  });
});
