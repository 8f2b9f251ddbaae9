import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorMessage } from '../field-errors.js';
import { validatePrinterColumn, validatePrinterColumnPath } from './index.js';

describe('validatePrinterColumnPath (kube validateSimpleJSONPath)', () => {
  it('accepts paths starting with .', () => {
    for (const p of ['.spec.replicas', '.status.matchedPods', '.metadata.creationTimestamp', '.', '.spec.containers[0].image']) {
      assert.equal(validatePrinterColumnPath(p), undefined);
    }
  });
  it('rejects others with kube words', () => {
    assert.equal(validatePrinterColumnPath(''), 'must not be empty');
    assert.equal(validatePrinterColumnPath('x'), 'must be a simple json path starting with .');
    assert.equal(validatePrinterColumnPath('{.spec.x}'), 'must be a simple json path starting with .');
    assert.equal(validatePrinterColumnPath('$.spec.x'), 'must be a simple json path starting with .');
  });
});

describe('validatePrinterColumn (kube ValidateCustomResourceColumnDefinition)', () => {
  const at = 'spec.versions[0].additionalPrinterColumns[0]';
  const messages = (col: Parameters<typeof validatePrinterColumn>[0]) => validatePrinterColumn(col, at).map(fieldErrorMessage);

  it('accepts a good column', () => {
    assert.deepEqual(messages({ name: 'MATCHED', type: 'integer', jsonPath: '.status.matchedPods' }), []);
    assert.deepEqual(messages({ name: 'AGE', type: 'date', format: 'date-time', jsonPath: '.metadata.creationTimestamp' }), []);
  });
  it('reports a bad JSONPath under the JSONPath field', () => {
    assert.deepEqual(messages({ name: 'X', type: 'string', jsonPath: 'x' }), [
      'spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "x": must be a simple json path starting with .',
    ]);
    assert.deepEqual(messages({ name: 'X', type: 'string', jsonPath: '' }), [
      'spec.versions[0].additionalPrinterColumns[0].JSONPath: Required value',
    ]);
  });
  it('reports name, type and format', () => {
    assert.deepEqual(messages({ type: 'float', format: 'uuid', jsonPath: '.a' }), [
      'spec.versions[0].additionalPrinterColumns[0].name: Required value',
      'spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string',
      'spec.versions[0].additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password',
    ]);
    assert.deepEqual(messages({ name: 'X', jsonPath: '.a' }), [
      'spec.versions[0].additionalPrinterColumns[0].type: Required value: must be one of boolean,date,integer,number,string',
    ]);
  });
});
