import assert from 'node:assert/strict';
import Type from 'typebox';
import { plan, warehousePlan } from '../../core/plan.ts';
import { type ColumnPlan, columnFromSchema, eventColumns } from '../../core/warehouse/warehouse.ts';
import { CATALOGUE } from '../../schemas/catalogue.ts';
import type { Settings } from '../../schemas/settings.ts';

const settings: Settings = {
  name: 'test',
  project: 'test-project',
  region: 'europe-west1',
  dataset: 'analytics',
  warehouse: { partition_expiration_days: 400 },
};

const names = (cols: readonly ColumnPlan[]) => cols.map((c) => c.name);

describe('storage: warehouse plan (tables and views as data)', () => {
  const { tables, views } = warehousePlan(settings);
  const table = (name: string) => {
    const t = tables.find((x) => x.name === name);
    assert.ok(t, `table ${name}`);
    return t;
  };

  it('declares events, invalid_events, deliveries and hook_failures, then the models’ tables, each listed once', () => {
    assert.deepEqual(
      tables.map((t) => t.name),
      [
        'events',
        'invalid_events',
        'deliveries',
        'hook_failures',
        // docs/sessions.md (warehouse.models, on by default)
        'sessions',
        'identity_map',
        'identity_merges',
        'identity_erasures',
        'model_watermarks',
      ],
    );
    const all = [...tables.map((t) => t.name), ...views.map((v) => v.name)];
    assert.equal(new Set(all).size, all.length);
  });

  it('partitions events by event_time (DAY) with the settings expiry and clusters by event_name, user_id', () => {
    const events = table('events');
    assert.deepEqual(events.timePartitioning, {
      type: 'DAY',
      field: 'event_time',
      expirationMs: String(400 * 86_400_000),
    });
    assert.deepEqual(events.clustering, ['event_name', 'user_id']);
    const noExpiry = warehousePlan({ ...settings, warehouse: {} }).tables[0];
    assert.equal(noExpiry?.timePartitioning?.expirationMs, undefined);
  });

  it('gives events the docs/architecture.md §4 columns with the context groups as RECORDs from schemas/context.ts', () => {
    const cols = eventColumns();
    for (const name of [
      'event_id',
      'event_name',
      'event_time',
      'received_at',
      'topic',
      'message_id',
      'user_id',
      'anonymous_id',
      'session_id',
      'source',
      'user',
      'page',
      'device',
      'campaign',
      'consent',
      'event_data',
      'attributes',
    ]) {
      assert.ok(names(cols).includes(name), name);
    }
    const byName = new Map(cols.map((c) => [c.name, c]));
    assert.equal(byName.get('event_id')?.mode, 'REQUIRED');
    assert.equal(byName.get('event_time')?.type, 'TIMESTAMP');
    assert.equal(byName.get('event_data')?.type, 'JSON');
    const user = byName.get('user');
    assert.equal(user?.type, 'RECORD');
    assert.ok(names(user?.fields ?? []).includes('email'));
    assert.ok(user?.description, 'groups keep their schema description');
    const consent = byName.get('consent');
    assert.deepEqual(
      consent?.fields?.map((f) => [f.name, f.type]),
      [
        ['analytics', 'STRING'],
        ['ads', 'STRING'],
        ['ad_user_data', 'STRING'],
        ['ad_personalization', 'STRING'],
        // As the web expresses it (docs/delivery.md, "Consent"): Consent Mode's names, TCF, GPP, USP, GPC.
        ['ad_storage', 'STRING'],
        ['analytics_storage', 'STRING'],
        ['tcf', 'STRING'],
        ['gdpr_applies', 'BOOL'],
        ['gpp', 'STRING'],
        ['gpp_sid', 'STRING'],
        ['us_privacy', 'STRING'],
        ['gpc', 'BOOL'],
        // The tag's marker for a GPP CMP that had not answered, and Consent Mode's region defaults.
        ['gpp_pending', 'BOOL'],
        ['region_defaults', 'RECORD'],
      ],
    );
    const regions = consent?.fields?.find((f) => f.name === 'region_defaults');
    assert.equal(regions?.mode, 'REPEATED');
    assert.deepEqual(
      regions?.fields?.map((f) => [f.name, f.type, f.mode]),
      [
        ['region', 'STRING', 'REPEATED'],
        ['ad_storage', 'STRING', 'NULLABLE'],
        ['analytics_storage', 'STRING', 'NULLABLE'],
        ['ad_user_data', 'STRING', 'NULLABLE'],
        ['ad_personalization', 'STRING', 'NULLABLE'],
      ],
    );
    for (const c of cols) assert.ok(c.description, `${c.name} has a description`);
  });

  it('keeps invalid events with their raw payload and a repeated errors record', () => {
    const invalid = table('invalid_events');
    const errors = invalid.columns.find((c) => c.name === 'errors');
    assert.equal(errors?.mode, 'REPEATED');
    assert.deepEqual(names(errors?.fields ?? []), ['path', 'message']);
    assert.ok(names(invalid.columns).includes('payload'));
    assert.equal(invalid.timePartitioning?.field, 'received_at');
  });

  it('gives deliveries the ledger columns (recorded_at, not the DuckDB keyword at)', () => {
    assert.deepEqual(names(table('deliveries').columns), [
      'event_id',
      'event_name',
      'destination',
      'status',
      'reason',
      'attempt',
      'http_status',
      'replay',
      'recorded_at',
      // Appended (BigQuery adds columns only at the end): the event row's identity with event_id.
      'payload_digest',
      // The identifier kinds of an attempt's request (match quality).
      'identifiers',
      // What the platform answered (issue #62): nullable, added in place.
      'platform_ref',
      'platform_events_received',
      'platform_response',
      // The trace the row was written under (docs/observability.md).
      'trace_id',
      // A backfill's rows (docs/delivery.md#backfill): nullable, added in place.
      'backfill',
    ]);
  });

  it('derives column types from typebox schemas', () => {
    const cases: [string, ReturnType<typeof Type.String>, Partial<ColumnPlan>][] = [
      ['s', Type.String(), { type: 'STRING' }],
      ['t', Type.String({ format: 'date-time' }), { type: 'TIMESTAMP' }],
      ['i', Type.Integer() as never, { type: 'INT64' }],
      ['n', Type.Number() as never, { type: 'FLOAT64' }],
      ['b', Type.Boolean() as never, { type: 'BOOL' }],
      ['e', Type.Union([Type.Literal('a'), Type.Literal('b')]) as never, { type: 'STRING' }],
      ['m', Type.Union([Type.String(), Type.Integer()]) as never, { type: 'JSON' }],
      ['a', Type.Array(Type.String()) as never, { type: 'STRING', mode: 'REPEATED' }],
      ['o', Type.Object({ x: Type.Integer() }, { additionalProperties: false }) as never, { type: 'RECORD' }],
      ['open', Type.Object({ x: Type.Integer() }) as never, { type: 'JSON' }],
      ['aa', Type.Array(Type.Array(Type.String())) as never, { type: 'JSON' }],
    ];
    for (const [name, schema, expected] of cases) {
      const c = columnFromSchema(name, schema);
      for (const [k, v] of Object.entries(expected))
        assert.equal(c[k as keyof ColumnPlan], v, `${name}.${k}`);
    }
    assert.equal(columnFromSchema('r', Type.String(), true).mode, 'REQUIRED');
  });

  it('de-duplicates by event_id with the partition column inside the window partition', () => {
    const dedup = views.find((v) => v.name === 'events_dedup');
    assert.match(dedup?.query ?? '', /PARTITION BY event_time, event_id/);
    assert.match(dedup?.query ?? '', /`test-project\.analytics\.events`/);
  });

  it('has one view per catalogue event type over events_dedup, with its fields as typed columns', () => {
    for (const type of CATALOGUE) {
      const view = views.find((v) => v.name === type.name);
      assert.ok(view, type.name);
      assert.match(view.query, /FROM `test-project\.analytics\.events_dedup`/);
      assert.match(view.query, new RegExp(`WHERE event_name = '${type.name}'`));
    }
    const vc = views.find((v) => v.name === 'view_content');
    assert.match(vc?.query ?? '', /JSON_VALUE\(event_data, '\$\.content_name'\) AS content_name/);
    assert.match(vc?.query ?? '', /SAFE_CAST\(JSON_VALUE\(event_data, '\$\.value'\) AS FLOAT64\) AS value/);
    const purchase = views.find((v) => v.name === 'purchase');
    assert.equal(purchase?.columns?.find((c) => c.name === 'items')?.type, 'JSON');
  });

  it('derives identities from events_dedup', () => {
    const identities = views.find((v) => v.name === 'identities');
    assert.match(identities?.query ?? '', /FROM `test-project\.analytics\.events_dedup`/);
    assert.deepEqual(names(identities?.columns ?? []), [
      'user_id',
      'anonymous_id',
      'first_seen',
      'last_seen',
      'events',
    ]);
  });

  it('is what plan() lists, in the same dataset name for every environment', () => {
    const p = plan(settings);
    assert.deepEqual(
      p.tables.map((t) => t.name),
      tables.map((t) => t.name),
    );
    assert.deepEqual(
      p.views.map((v) => v.name),
      views.map((v) => v.name),
    );
    assert.equal(p.dataset, 'analytics');
  });
});
