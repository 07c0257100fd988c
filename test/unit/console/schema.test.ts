/** The SQL page's schema browser: a `tables.get` schema as columns (core/console/schema.ts). */
import assert from 'node:assert/strict';
import { schemaColumns, schemaTable } from '../../../core/console/schema.ts';

describe('console: the schema browser’s columns', () => {
  it('names types as GoogleSQL does and lists a record’s fields under dotted paths', () => {
    assert.deepEqual(
      schemaColumns([
        { name: 'value', type: 'FLOAT', description: 'Order value' },
        { name: 'n', type: 'INTEGER' },
        { name: 'ok', type: 'BOOLEAN' },
        { name: 'user', type: 'RECORD', fields: [{ name: 'email', type: 'STRING' }] },
        { name: 'tags', type: 'STRING', mode: 'REPEATED' },
      ]),
      [
        { name: 'value', type: 'FLOAT64', description: 'Order value' },
        { name: 'n', type: 'INT64' },
        { name: 'ok', type: 'BOOL' },
        { name: 'user', type: 'STRUCT' },
        { name: 'user.email', type: 'STRING' },
        { name: 'tags', type: 'ARRAY<STRING>' },
      ],
    );
  });

  it('lists a repeated record as its array only (its fields are reached through UNNEST)', () => {
    assert.deepEqual(
      schemaColumns([
        { name: 'items', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'sku', type: 'STRING' }] },
      ]),
      [{ name: 'items', type: 'ARRAY<STRUCT>' }],
    );
  });

  it('tells a view from a table', () => {
    const view = schemaTable({
      tableReference: { tableId: 'purchase' },
      type: 'VIEW',
      schema: { fields: [] },
    });
    assert.deepEqual(view, { name: 'purchase', kind: 'view', columns: [] });
    assert.equal(schemaTable({ tableReference: { tableId: 'events' }, type: 'TABLE' }).kind, 'table');
  });
});
