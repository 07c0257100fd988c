/**
 * Slice replays and column-level security: the table a slice is kept in carries the events
 * table's policy tags (sliceSchema), and the replay job's SQL never writes the PII columns into a
 * table made from a query (a `CREATE TABLE … AS SELECT` has no tags: whoever reads the ops
 * dataset would read the copied PII raw).
 */
import assert from 'node:assert/strict';
import { REPLAY_COLUMNS, type SchemaField, sliceSchema } from '../../../core/delivery/replay.ts';
import { warehousePlan } from '../../../core/plan.ts';
import type { ReplayRecord } from '../../../core/scheduler/replays.ts';
import { PII_COLUMNS, withPolicyTags } from '../../../core/warehouse/pii-columns.ts';
import { TABLES } from '../../../core/warehouse/warehouse.ts';
import { replayJob, sliceTable } from '../../../functions/schedule/replays.ts';
import type { ChunkContext } from '../../../functions/schedule/runner.ts';
import type { Settings } from '../../../schemas/settings.ts';

const TAG = 'projects/p/locations/eu/taxonomies/1/policyTags/2';

/** Every column path (dotted into RECORDs) that carries `tag`. */
function taggedPaths(fields: readonly SchemaField[], prefix = ''): string[] {
  return fields.flatMap((f) => {
    const path = `${prefix}${f.name}`;
    if (f.fields) return taggedPaths(f.fields, `${path}.`);
    return f.policyTags?.names.includes(TAG) ? [path] : [];
  });
}

describe('slice replays keep personal data column-secured', () => {
  const settings: Settings = {
    name: 'slices',
    project: 'slices-project',
    region: 'europe-west1',
    destinations: [
      {
        id: 'hook',
        type: 'webhook',
        base_url: 'https://hook.example',
        secrets: { signing_key: 'hook-key' },
      },
    ],
  } as Settings;
  const events = warehousePlan(settings).tables.find((t) => t.name === TABLES.events);
  const tagged = withPolicyTags(
    events?.columns ?? [],
    PII_COLUMNS[TABLES.events] ?? [],
    TAG,
  ) as SchemaField[];

  it('gives the slice table the events table’s policy tag on every PII column it holds', () => {
    const schema = sliceSchema(tagged);
    assert.deepEqual(
      schema.map((f) => f.name),
      [...REPLAY_COLUMNS],
    );
    const held = (PII_COLUMNS[TABLES.events] ?? []).filter((p) =>
      (REPLAY_COLUMNS as readonly string[]).includes(p.split('.')[0] as string),
    );
    assert.ok(held.length > 0, 'a slice holds PII columns');
    assert.deepEqual(taggedPaths(schema).sort(), [...held].sort());
  });

  it('makes the slice table with that schema, then inserts into it: no statement creates a table from a query', async () => {
    const steps: string[] = [];
    const record: ReplayRecord = {
      id: '20260101T000000Z-abc',
      destination: 'hook',
      source: 'slice',
      from: '2026-01-01T00:00:00Z',
      to: '2026-01-02T00:00:00Z',
      requested_by: 'ana@acme.example',
      requested_at: '2026-01-01T00:00:00Z',
      status: 'requested',
    };
    const job = replayJob({
      settings,
      project: settings.project,
      dataset: 'events',
      ops: 'eventbus_ops',
      pending: async () => [record],
      read: async () => record,
      finish: async () => {},
      source: async () => {
        throw new Error('no dead letters here');
      },
      publish: async () => [],
      writeLedger: async () => [],
      assertSelect: async () => {},
      run: async (sql) => {
        steps.push(`run ${sql}`);
        return [{ n: 3 }];
      },
      page: async () => [],
      createSlice: async (table) => {
        steps.push(`create ${table}`);
      },
    });
    const ctx: ChunkContext = {
      run: { kind: 'Replay', name: record.id, slot: 'manual', trigger: 'manual' } as ChunkContext['run'],
      runId: 'r',
      cursor: null,
      chunk: 0,
      now: new Date('2026-01-03T00:00:00Z'),
      fence: async () => {},
    };
    const result = await job.chunk(ctx);
    assert.equal(result.done, false);
    const table = sliceTable(record.id);
    assert.equal(steps[0], `create ${table}`);
    assert.match(steps[1] ?? '', new RegExp(`^run INSERT INTO \`eventbus_ops\\.${table}\` \\(`));
    for (const step of steps)
      assert.doesNotMatch(step, /CREATE\s+(OR\s+REPLACE\s+)?TABLE[\s\S]*\bAS\s+SELECT/i);
  });
});
