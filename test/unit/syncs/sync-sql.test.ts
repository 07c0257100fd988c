/**
 * The SQL of a sync run (core/syncs/sync-sql.ts) in what decides what the state keeps: the kept
 * form per destination and mode, the conversion of an earlier version's state, the commit's kept
 * identifiers as safe literals split to fit BigQuery's query size, and the run's end. Pure; the
 * statements run on the BigQuery emulator in test/scheduler/sync-state-privacy.test.ts.
 */
import assert from 'node:assert/strict';
import {
  COMMIT_TEXT_BUDGET,
  clearChangesStatement,
  commitStatements,
  jsonLiteral,
  keptForm,
  upgradeStatement,
} from '../../../core/syncs/sync-sql.ts';
import { decodeEscapes } from '../../../emulators/bigquery/sql-tree.ts';
import type { SyncSpec } from '../../../schemas/sync.ts';

const spec = (mode: SyncSpec['mode'], destination: SyncSpec['destination']): SyncSpec => ({
  model: 'SELECT user_id, email FROM customers',
  primary_key: ['user_id'],
  mode,
  schedule: { every: '1h' },
  destination,
});
const META = { meta_audience: { connection: 'meta', audience_id: '42' } };
const HOOK = { webhook: { connection: 'crm' } };

describe('syncs: what the state keeps, in SQL', () => {
  it('keeps nothing outside mirror mode, the key for a webhook or files, identifiers for an audience', () => {
    assert.equal(keptForm(spec('upsert', META)), 'nothing');
    assert.equal(keptForm(spec('mirror', HOOK)), 'key');
    assert.equal(keptForm(spec('mirror', { files: { connection: 'x' } })), 'key');
    assert.equal(keptForm(spec('mirror', META)), 'identifiers');
  });

  it('converts an earlier state: keys become digests, and only what deletions need is kept', () => {
    const st = 'ops.sync_state__x';
    assert.equal(
      upgradeStatement(spec('upsert', HOOK), st),
      `UPDATE ${st} SET __key = IF(STARTS_WITH(__key, '{'), TO_HEX(SHA256(__key)), __key), __row = NULL WHERE STARTS_WITH(__key, '{') OR __row IS NOT NULL`,
    );
    assert.match(
      upgradeStatement(spec('mirror', HOOK), st),
      /, __row = __key WHERE STARTS_WITH\(__key, '\{'\)$/,
    );
    // An audience's old rows are restated by the run (their identifiers need the platform's code).
    assert.doesNotMatch(upgradeStatement(spec('mirror', META), st), /__row =/);
  });

  it('commits what each form keeps: the key from the changes, identifiers as literals, or nothing', () => {
    const [key] = commitStatements(spec('mirror', HOOK), 'ops', 'x', [1, 2]);
    assert.match(
      key ?? '',
      /SELECT c\.__key, c\.__hash, c\.__op, c\.__pk AS __kept FROM ops\.sync_changes__x c WHERE/,
    );
    const [none] = commitStatements(spec('upsert', META), 'ops', 'x', [1], new Map([[1, '["x"]']]));
    assert.match(none ?? '', /CAST\(NULL AS STRING\) AS __kept/);
    const [ids] = commitStatements(
      spec('mirror', META),
      'ops',
      'x',
      [1, 2],
      new Map([[1, '[["EMAIL","ab"]]']]),
    );
    assert.match(
      ids ?? '',
      /LEFT JOIN UNNEST\(\[STRUCT\(1 AS n, '\[\["EMAIL","ab"\]\]' AS kept\)\]\) k ON k\.n = c\.__n/,
    );
    assert.match(ids ?? '', /WHERE c\.__n IN \(1, 2\)\) u ON t\.__key = u\.__key/);
    assert.equal(clearChangesStatement('ops', 'x-y'), 'TRUNCATE TABLE ops.sync_changes__x_y');
  });

  it('splits a page whose kept identifiers exceed the budget, each row in exactly one statement', () => {
    const big = `[["EMAIL","${'a'.repeat(COMMIT_TEXT_BUDGET / 3)}"]]`;
    const kept = new Map([1, 2, 3, 4, 5].map((n) => [n, big]));
    const statements = commitStatements(spec('mirror', META), 'ops', 'x', [1, 2, 3, 4, 5], kept);
    assert.ok(statements.length >= 2);
    const ns = statements.flatMap((s) =>
      (/c\.__n IN \(([^)]*)\)/.exec(s)?.[1] ?? '').split(', ').map(Number),
    );
    assert.deepEqual(ns, [1, 2, 3, 4, 5]);
    for (const s of statements) assert.ok(s.length < 1_024_000, String(s.length));
  });

  it('writes kept JSON as a literal of printable ASCII that reads back as the same value', () => {
    const value = [['EXTERN_ID', `O'Brien \\ "Zoë" 😀\n`]];
    const literal = jsonLiteral(JSON.stringify(value));
    assert.match(literal, /^'[\x20-\x7e]*'$/);
    assert.deepEqual(JSON.parse(decodeEscapes(literal.slice(1, -1), 0)), value);
  });
});
