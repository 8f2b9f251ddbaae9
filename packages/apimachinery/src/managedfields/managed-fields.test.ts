import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { managedFieldsTime, managerIdentifier, parseManagerIdentifier, type ManagerInfo } from './managed-fields.js';

describe('manager identifiers', () => {
  it('are the JSON of their parts, also for parts whose texts run together alike', () => {
    const cases: ManagerInfo[] = [
      { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', subresource: 'status' },
      { manager: 'kubelet', operation: 'Update', apiVersion: 'v1' },
      { manager: 'statuskubelet', operation: 'Update', apiVersion: 'v1' },
      { manager: '6:status', operation: 'Update', apiVersion: 'v1' },
      { manager: 'kubelet', operation: 'Apply', apiVersion: 'v1', subresource: 'status' },
      { manager: 'kubelet', operation: 'Apply', apiVersion: 'v2', subresource: 'status' },
      { manager: 'x', operation: 'Update', apiVersion: '1:a' },
      { manager: '1:ax', operation: 'Update', apiVersion: '' },
    ];
    const json = (c: ManagerInfo): string => {
      const id: Record<string, string> = { manager: c.manager, operation: c.operation };
      if (c.operation === 'Update' && c.apiVersion) id.apiVersion = c.apiVersion;
      if (c.subresource) id.subresource = c.subresource;
      return JSON.stringify(id);
    };
    for (let round = 0; round < 2; round++) for (const c of cases) assert.equal(managerIdentifier(c), json(c));
  });

  it("parse to an object of the caller's own each time", () => {
    const id = managerIdentifier({ manager: 'm', operation: 'Update', apiVersion: 'v1' });
    const first = parseManagerIdentifier(id)!;
    first.manager = 'changed';
    assert.deepEqual(parseManagerIdentifier(id), { manager: 'm', operation: 'Update', apiVersion: 'v1' });
    assert.equal(parseManagerIdentifier('not json'), undefined);
  });
});

describe('managedFieldsTime', () => {
  it('writes RFC 3339 to the second, following the clock across seconds', () => {
    assert.equal(managedFieldsTime(new Date('2026-12-03T13:00:00.100Z')), '2026-12-03T13:00:00Z');
    assert.equal(managedFieldsTime(new Date('2026-12-03T13:00:00.900Z')), '2026-12-03T13:00:00Z');
    assert.equal(managedFieldsTime(new Date('2026-12-03T13:00:01.000Z')), '2026-12-03T13:00:01Z');
    assert.equal(managedFieldsTime(new Date('2026-12-03T12:59:59.999Z')), '2026-12-03T12:59:59Z');
  });
});
