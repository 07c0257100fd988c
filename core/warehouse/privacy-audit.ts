/**
 * The privacy audit tables of the ops dataset (docs/privacy.md "Audit"): `erasures`, one row per
 * erasure request, updated by each pass until it completes, and `exports`, one row per access
 * request. They keep who asked, when, and the second-order hashes of the identifiers
 * (core/privacy/erasure.ts, `erasureHash`), never a value. They never expire: they are the proof.
 */
import { column as col, type TablePlan } from './table-plan.ts';

const HASHES = col(
  'identifier_hashes',
  'STRING',
  'SHA-256 of each identifier as kind:value (an e-mail or phone as its own SHA-256): never the value, never the hash platforms receive',
  'REPEATED',
);

/** The audit tables' names, in the ops dataset. */
export const PRIVACY_TABLES = Object.freeze({ erasures: 'erasures', exports: 'exports' } as const);

export function privacyAuditTables(): TablePlan[] {
  return [
    {
      name: PRIVACY_TABLES.erasures,
      description:
        'Erasure requests: who asked, the identifiers as hashes, rows removed per table, platforms told',
      columns: [
        col('erasure_id', 'STRING', 'The request', 'REQUIRED'),
        col('requested_at', 'TIMESTAMP', 'When it was recorded (partition column)', 'REQUIRED'),
        col('requested_by', 'STRING', 'Who asked: the operator, or the studio user', 'REQUIRED'),
        HASHES,
        col('status', 'STRING', 'pending (rows still in the streaming buffer) | complete', 'REQUIRED'),
        col('removed', 'STRING', 'Rows removed so far, as JSON: {"<dataset>.<table>": rows}'),
        col('waiting', 'STRING', 'Tables the last pass could not change yet (streaming buffer)', 'REPEATED'),
        col(
          'platforms',
          'STRING',
          'Platforms told to delete, as JSON: [{platform, target, status, detail, at}]',
        ),
        col('passes', 'INT64', 'Passes run so far'),
        col('updated_at', 'TIMESTAMP', 'The last pass'),
        col('completed_at', 'TIMESTAMP', 'When no table held the person any more'),
      ],
      timePartitioning: { type: 'DAY', field: 'requested_at' },
    },
    {
      name: PRIVACY_TABLES.exports,
      description: 'Access requests: who exported whose rows (as hashes), and how many per table',
      columns: [
        col('export_id', 'STRING', 'The request', 'REQUIRED'),
        col('requested_at', 'TIMESTAMP', 'When (partition column)', 'REQUIRED'),
        col('requested_by', 'STRING', 'Who asked', 'REQUIRED'),
        HASHES,
        col('rows', 'STRING', 'Rows exported, as JSON: {"<dataset>.<table>": rows}'),
      ],
      timePartitioning: { type: 'DAY', field: 'requested_at' },
    },
  ];
}
