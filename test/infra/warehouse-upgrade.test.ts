/**
 * Upgrading the warehouse in one `pulumi up` (issue #62, docs/delivery.md "What the platform
 * answered"): the ledger gains nullable columns, which must update the table in place, never
 * replace it. Pulumi's mocks do not diff, so this checks what decides it, old state against new
 * program: the same resource (logical name, table id) whose schema keeps every old column as it
 * was (name, type, mode, in order) and only appends NULLABLE or REPEATED ones, the change
 * BigQuery applies in place (tables.patch) and the gcp provider updates without a replacement;
 * a column removed, retyped, re-moded or inserted before others would replace the table, which
 * deletion protection then refuses. And forward, which writes the new columns, is updated after
 * the table (a row with an unknown column would be refused).
 */
import assert from 'node:assert/strict';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { BUNDLES, type Declared, declare, dependenciesOf, ofType, SETTINGS_FILES } from './support.ts';

const TABLE = 'gcp:bigquery/table:Table';
/**
 * The columns the releases since the ledger's first schema added to `deliveries`, in order (the
 * platform's answer, then the trace id of issue #81); the previous state declared the rest.
 */
const ADDED = ['platform_ref', 'platform_events_received', 'platform_response', 'trace_id', 'backfill'];

interface Field {
  readonly name: string;
  readonly type: string;
  readonly mode?: string;
  readonly fields?: readonly Field[];
}

/** Why a schema change would not be applied in place, or nothing when it would. */
function replacements(before: readonly Field[], after: readonly Field[], at = ''): string[] {
  const problems: string[] = [];
  before.forEach((old, i) => {
    const now = after[i];
    const where = `${at}${old.name}`;
    if (now?.name !== old.name) problems.push(`${where}: removed or moved (now ${now?.name ?? 'nothing'})`);
    else if (now.type !== old.type) problems.push(`${where}: ${old.type} → ${now.type}`);
    else if (
      (now.mode ?? 'NULLABLE') !== (old.mode ?? 'NULLABLE') &&
      !(old.mode === 'REQUIRED' && now.mode === 'NULLABLE')
    )
      problems.push(`${where}: mode ${old.mode} → ${now.mode}`);
    else problems.push(...replacements(old.fields ?? [], now.fields ?? [], `${where}.`));
  });
  for (const added of after.slice(before.length))
    if (added.mode === 'REQUIRED') problems.push(`${at}${added.name}: a REQUIRED column cannot be added`);
  return problems;
}

const schemaOf = (t: Declared): Field[] => JSON.parse(String(t.inputs['schema'])) as Field[];

describe('infra: the warehouse upgrades in place (old state → new program)', () => {
  for (const { settingsFile, project, region } of SETTINGS_FILES)
    it(`${settingsFile}: the ledger gains its platform columns without a replacement`, async () => {
      const config = loadStackConfig({ project, region, settingsFile });
      const recorded = await declare(() => declareEnvironment(config, BUNDLES));
      const tables = ofType(recorded, TABLE).filter((t) => t.inputs['schema'] !== undefined);
      const ledger = tables.find((t) => t.inputs['tableId'] === 'deliveries');
      assert.ok(ledger, 'the program declares deliveries');
      assert.equal(
        ledger.inputs['deletionProtection'],
        true,
        'a replacement would be refused, not lose data',
      );
      const now = schemaOf(ledger);
      assert.deepEqual(
        now.slice(-ADDED.length).map((f) => [f.name, f.mode]),
        ADDED.map((n) => [n, 'NULLABLE']),
      );
      // The previous release's state: the same resource, without this release's columns.
      const previous = now.filter((f) => !ADDED.includes(f.name));
      assert.deepEqual(replacements(previous, now), []);
      // The code that writes the new columns (forward, as a function or a service) is updated only
      // once the table has them.
      const entries = [...recorded.graph.entries()];
      const ledgerUrn = entries.find(([, r]) => r.name === ledger.name)?.[0];
      const writers = entries.filter(
        ([, r]) =>
          r.custom &&
          (r.type === 'gcp:cloudfunctionsv2/function:Function' ||
            r.type === 'gcp:cloudrunv2/service:Service') &&
          r.name.endsWith('-forward'),
      );
      assert.ok(ledgerUrn && writers.length > 0, 'the ledger and forward are declared');
      for (const [urn, r] of writers)
        assert.ok(dependenciesOf(recorded, urn).has(ledgerUrn), `${r.name} waits for the ledger`);
      // Every other table as declared is its own old state: nothing else changes shape.
      for (const t of tables) assert.deepEqual(replacements(schemaOf(t), schemaOf(t)), [], String(t.name));
    });

  it('would have caught a change that replaces the table', () => {
    const old: Field[] = [
      { name: 'event_id', type: 'STRING', mode: 'REQUIRED' },
      { name: 'reason', type: 'STRING', mode: 'NULLABLE' },
    ];
    assert.deepEqual(
      replacements(old, [
        { name: 'event_id', type: 'STRING', mode: 'REQUIRED' },
        { name: 'platform_ref', type: 'STRING', mode: 'NULLABLE' },
        { name: 'reason', type: 'STRING', mode: 'NULLABLE' },
      ]),
      ['reason: removed or moved (now platform_ref)'],
    );
    assert.deepEqual(
      replacements(old, [{ name: 'event_id', type: 'INT64', mode: 'REQUIRED' }, old[1] as Field]),
      ['event_id: STRING → INT64'],
    );
    assert.deepEqual(replacements(old, [...old, { name: 'x', type: 'STRING', mode: 'REQUIRED' }]), [
      'x: a REQUIRED column cannot be added',
    ]);
  });
});
