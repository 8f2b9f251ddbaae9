import assert from 'node:assert/strict';
import { it } from 'node:test';
import { FieldSet } from './field-set.js';

it("toFieldsV1 writes structured-merge-diff's order (fields, keys, values, indices), '.' for a member with children, and no empty child", () => {
  const set = FieldSet.of(
    [{ field: 'spec' }, { field: 'ports' }, { key: [['port', 443]] }, { field: 'name' }],
    [{ field: 'spec' }, { field: 'ports' }, { key: [['port', 80]] }],
    [{ field: 'spec' }, { field: 'ports' }, { key: [['port', 80]] }, { field: 'port' }],
    [{ field: 'spec' }, { field: 'finalizers' }, { value: 'b' }],
    [{ field: 'spec' }, { field: 'finalizers' }, { value: 'a' }],
    [{ field: 'spec' }, { field: 'args' }, { index: 1 }],
    [{ field: 'spec' }, { field: 'args' }],
    [{ field: 'metadata' }, { field: 'labels' }, { field: 'Zeta' }],
    [{ field: 'metadata' }, { field: 'labels' }, { field: 'alpha' }],
  );
  // A child made and left empty (as a comparison's walk leaves them) is not written.
  set.descend({ field: 'status' }).descend({ field: 'conditions' });
  const fields = set.toFieldsV1();
  assert.equal(
    JSON.stringify(fields),
    JSON.stringify({
      'f:metadata': { 'f:labels': { 'f:Zeta': {}, 'f:alpha': {} } },
      'f:spec': {
        'f:args': { '.': {}, 'i:1': {} },
        'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} },
        'f:ports': { 'k:{"port":80}': { '.': {}, 'f:port': {} }, 'k:{"port":443}': { 'f:name': {} } },
      },
    }),
  );
  assert.ok(FieldSet.fromFieldsV1(fields).equals(set));
});
