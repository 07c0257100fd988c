/**
 * The tables `store` and `forward` write through the Storage Write API (docs/storage.md, "How
 * rows are written") take the BigQuery emulator's fast row path (emulators/bigquery/write-rows.ts):
 * every column is of a type it writes as JSON text, with the proto type the store's writer sends
 * for it (the descriptor Google's client makes from the table's schema). A column type added to
 * one of these tables without a text form would silently send every append down the emulator's
 * general path, at about three times the CPU a row; this says so instead.
 */
import assert from 'node:assert/strict';
import bigqueryStorage from '@google-cloud/bigquery-storage';
import { type RowDescriptor, rowEncoder } from '../../adapters/proto-rows.ts';
import {
  deliveryColumns,
  eventColumns,
  hookFailureColumns,
  invalidEventColumns,
} from '../../core/warehouse/warehouse.ts';
import { type FieldSchema, normaliseSchema } from '../../emulators/bigquery/schema.ts';
import { fastRows } from '../../emulators/bigquery/write-rows.ts';
import { writerSchema } from '../../emulators/bigquery/write-streams.ts';

const { adapt, protos } = bigqueryStorage;

const TABLES = {
  events: eventColumns(),
  invalid_events: invalidEventColumns(),
  hook_failures: hookFailureColumns(),
  deliveries: deliveryColumns(),
};

describe('storage: the Write API tables take the emulator’s fast row path', () => {
  for (const [table, columns] of Object.entries(TABLES))
    it(`${table}: the emulator compiles a fast path for the store writer's descriptor`, () => {
      const fields = normaliseSchema(columns) as FieldSchema[];
      assert.ok(Array.isArray(fields), String(fields));
      const storageSchema = adapt.convertBigQuerySchemaToStorageTableSchema({ fields: columns as never });
      const descriptor = adapt.convertStorageSchemaToProto2Descriptor(storageSchema, 'root');
      const bytes = protos.google.protobuf.DescriptorProto.encode(descriptor as never).finish();
      const fast = fastRows(writerSchema(bytes, fields, table).type, fields);
      assert.ok(fast, `${table} has a column the fast path does not write`);
      // A row of the writer's own encoding with only the REQUIRED columns goes through it.
      const encoder = rowEncoder(storageSchema.fields as never, descriptor as RowDescriptor);
      const row: Record<string, unknown> = {};
      for (const c of columns)
        if (c.mode === 'REQUIRED')
          row[c.name] =
            c.type === 'TIMESTAMP'
              ? '2026-11-26T08:00:00.000001Z'
              : c.type === 'INT64'
                ? 1
                : c.type === 'BOOL'
                  ? true
                  : 'x';
      const text = fast([encoder.encode(row)]);
      assert.ok(text, `a row of ${table} went to the general path`);
      text.release();
    });
});
