/**
 * local/provision.ts `withAddedFields`: what `npm start` adds to an existing local table when the
 * plan's schema grew, at any depth (the contract's new `campaign.*` click ids, `device.client_hints`
 * inside RECORDs), so a data directory made before an upgrade keeps storing events.
 */
import assert from 'node:assert/strict';
import { type SchemaField, withAddedFields } from '../../local/provision.ts';

describe('local provisioning: fields added to an existing table', () => {
  const have: SchemaField[] = [
    { name: 'event_id', type: 'STRING', mode: 'REQUIRED' },
    {
      name: 'device',
      type: 'RECORD',
      description: 'kept',
      fields: [{ name: 'user_agent', type: 'STRING' }],
    },
    { name: 'items', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'sku', type: 'STRING' }] },
  ];

  it('adds a field inside a RECORD and inside a REPEATED RECORD after the table’s own', () => {
    const want: SchemaField[] = [
      { name: 'event_id', type: 'STRING', mode: 'REQUIRED' },
      {
        name: 'device',
        type: 'RECORD',
        fields: [
          { name: 'client_hints', type: 'RECORD', fields: [{ name: 'ua', type: 'STRING' }] },
          { name: 'user_agent', type: 'STRING' },
        ],
      },
      {
        name: 'items',
        type: 'RECORD',
        mode: 'REPEATED',
        fields: [
          { name: 'sku', type: 'STRING' },
          { name: 'qty', type: 'INT64' },
        ],
      },
      { name: 'enriched', type: 'JSON' },
    ];
    const r = withAddedFields(have, want);
    assert.deepEqual(r.added, ['device.client_hints', 'items.qty', 'enriched']);
    assert.deepEqual(r.required, []);
    const device = r.fields[1] as SchemaField;
    assert.equal(device['description'], 'kept');
    assert.deepEqual(
      device.fields?.map((f) => f.name),
      ['user_agent', 'client_hints'],
    );
    assert.deepEqual(
      r.fields.map((f) => f.name),
      ['event_id', 'device', 'items', 'enriched'],
    );
  });

  it('finds nothing to add in the same schema, and names a REQUIRED addition at any depth', () => {
    assert.deepEqual(withAddedFields(have, have).added, []);
    const want = [
      have[0] as SchemaField,
      { ...(have[1] as SchemaField), fields: [{ name: 'user_agent' }, { name: 'must', mode: 'REQUIRED' }] },
      have[2] as SchemaField,
    ];
    assert.deepEqual(withAddedFields(have, want).required, ['device.must']);
  });
});
