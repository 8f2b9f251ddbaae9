import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  regexError,
  validatePathSegmentName,
} from './names.js';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035Msg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const namePartMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('regexError', () => {
  test("keeps kube's doubled space", () => {
    assert.equal(regexError('bad', 'x+'), "bad (regex used for validation is 'x+')");
    assert.equal(regexError('bad', 'x+', 'x', 'xx'), "bad (e.g. 'x',  or 'xx', regex used for validation is 'x+')");
  });
});

describe('isDNS1123Subdomain', () => {
  test('valid', () => {
    for (const v of ['a', 'example.com', 'a-b.c-d', '0', 'a'.repeat(253)]) assert.deepEqual(isDNS1123Subdomain(v), [], v);
  });
  test('invalid', () => {
    for (const v of ['', 'Example', 'a_b', '-a', 'a-', 'a..b', '.a', 'a.']) assert.deepEqual(isDNS1123Subdomain(v), [subdomainMsg], v);
    assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
    assert.deepEqual(isDNS1123Subdomain('A'.repeat(254)), ['must be no more than 253 characters', subdomainMsg]);
  });
});

describe('isDNS1123Label', () => {
  test('valid', () => {
    for (const v of ['a', 'my-name', '123-abc', 'a'.repeat(63)]) assert.deepEqual(isDNS1123Label(v), [], v);
  });
  test('invalid', () => {
    assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
    assert.deepEqual(isDNS1123Label('A'), [labelMsg]);
    assert.deepEqual(isDNS1123Label(''), [labelMsg]);
    assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
    // Length is counted in bytes, as Go does.
    assert.deepEqual(isDNS1123Label('é'.repeat(32)), ['must be no more than 63 characters', labelMsg]);
  });
});

describe('isDNS1035Label', () => {
  test('must start with a letter', () => {
    assert.deepEqual(isDNS1035Label('web'), []);
    assert.deepEqual(isDNS1035Label('1web'), [dns1035Msg]);
  });
});

describe('isQualifiedName', () => {
  test('valid', () => {
    for (const v of ['a', 'MyName', 'my.name', '123-abc', 'example.com/MyName', 'a/b', 'x_y', 'a'.repeat(63)]) {
      assert.deepEqual(isQualifiedName(v), [], v);
    }
  });
  test('invalid', () => {
    assert.deepEqual(isQualifiedName(''), ['name part must be non-empty', namePartMsg]);
    assert.deepEqual(isQualifiedName('a b'), [namePartMsg]);
    assert.deepEqual(isQualifiedName('-a'), [namePartMsg]);
    assert.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty']);
    assert.deepEqual(isQualifiedName('a/'), ['name part must be non-empty', namePartMsg]);
    assert.deepEqual(isQualifiedName('Example.com/a'), [`prefix part ${subdomainMsg}`]);
    assert.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']);
    assert.deepEqual(isQualifiedName('a/b/c'), [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
});

describe('isValidLabelValue', () => {
  test('valid', () => {
    for (const v of ['', 'MyValue', 'my_value', '12345', 'a.b-c', 'a'.repeat(63)]) assert.deepEqual(isValidLabelValue(v), [], v);
  });
  test('invalid', () => {
    assert.deepEqual(isValidLabelValue('-a'), [labelValueMsg]);
    assert.deepEqual(isValidLabelValue('a/b'), [labelValueMsg]);
    assert.deepEqual(isValidLabelValue('a'.repeat(64)), ['must be no more than 63 characters']);
  });
});

describe('name validators', () => {
  test('a generateName may end in a dash', () => {
    assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
    assert.deepEqual(nameIsDNSSubdomain('web-', false), [subdomainMsg]);
    assert.deepEqual(nameIsDNSLabel('ns-', true), []);
    assert.deepEqual(nameIsDNSSubdomain('-', true), [subdomainMsg]);
    assert.deepEqual(nameIsDNSSubdomain('Web-', true), [subdomainMsg]);
  });
  test('path segments', () => {
    assert.deepEqual(validatePathSegmentName('system:admin', false), []);
    assert.deepEqual(validatePathSegmentName('..', false), ["may not be '..'"]);
    assert.deepEqual(validatePathSegmentName('.', false), ["may not be '.'"]);
    assert.deepEqual(validatePathSegmentName('..', true), []);
    assert.deepEqual(validatePathSegmentName('a/b%', false), ["may not contain '/'", "may not contain '%'"]);
    assert.deepEqual(validatePathSegmentName('a/', true), ["may not contain '/'"]);
  });
});
