/**
 * The incremental models' SQL (core/models/sessions.ts, core/models/identity-graph.ts, docs/sessions.md),
 * asserted on the generated text: each run reads events only past its watermark with a partition
 * filter, writes only what changed, and moves the watermark in the same transaction, forward only
 * and only when events arrived. (What the SQL does is tested on the emulator:
 * test/scheduler/models.test.ts.)
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { erasureIdentifier, identityRunSql, LABEL_PASSES } from '../../../core/models/identity-graph.ts';
import { modelOptions, modelPlan } from '../../../core/models/models.ts';
import { DEFAULT_CONVERSIONS, sessionColumns, sessionsRunSql } from '../../../core/models/sessions.ts';
import { warehousePlan } from '../../../core/plan.ts';
import { erasureStatements } from '../../../core/privacy/erasure.ts';
import { MODEL_KIND, MODEL_TRAIL_MS, modelJob } from '../../../functions/schedule/models.ts';

const UPTO = new Date('2026-11-02T10:00:00.000Z');
const OPTIONS = { project: 'p', dataset: 'events' };

/** A script's statements, leading comments dropped. */
function statementsOf(sql: string): string[] {
  return sql
    .split(/;\n/)
    .map((s) => s.replace(/^(--[^\n]*\n|\s*\n)+/g, '').trim())
    .filter(Boolean);
}

function finder(statements: readonly string[]) {
  return (start: string): string => {
    const found = statements.filter((s) => s.startsWith(start));
    assert.equal(found.length, 1, `one statement starting ${start}`);
    return found[0] as string;
  };
}

/** Every statement that reads `events` or `events_dedup`. */
const eventReads = (statements: readonly string[]) =>
  statements.filter((s) => /`p\.events\.events(_dedup)?`/.test(s));

/** The watermark is declared from model_watermarks and moved last, inside the transaction. */
function assertWatermark(statements: readonly string[], model: string, rowsMerge: string): void {
  const statement = finder(statements);
  assert.match(
    statement('DECLARE since'),
    new RegExp(
      `IFNULL\\(MAX\\(watermark\\), TIMESTAMP '1970-01-01'\\) FROM \`p\\.events\\.model_watermarks\` WHERE model = '${model}'`,
    ),
  );
  const begin = statements.indexOf('BEGIN TRANSACTION');
  const commit = statements.indexOf('COMMIT TRANSACTION');
  const move = statements.findIndex((s) => s.startsWith('MERGE `p.events.model_watermarks`'));
  const rows = statements.findIndex((s) => s.startsWith(rowsMerge));
  assert.ok(begin >= 0 && begin < rows && rows < move && move < commit, statements.join('\n---\n'));
  const moveSql = statements[move] as string;
  assert.match(moveSql, /WHEN MATCHED AND w\.watermark < n\.watermark THEN UPDATE/);
  // Nothing arrived, nothing written: not even the watermark.
  assert.match(moveSql, /WHERE EXISTS \(SELECT 1 FROM arrived\)/);
}

describe('models: the sessions run’s SQL', () => {
  const run = sessionsRunSql(OPTIONS, UPTO);
  const statements = statementsOf(run.sql);
  const statement = finder(statements);

  it('reads events only past its watermark, up to @upto, with a partition filter on event_time', () => {
    const arrived = statement('CREATE TEMP TABLE arrived');
    assert.match(arrived, /FROM `p\.events\.events`/);
    assert.match(arrived, /WHERE received_at > since AND received_at <= @upto/);
    assert.match(arrived, /AND event_time >= TIMESTAMP_SUB\(@upto, INTERVAL @lookback_hours HOUR\)/);
    // The only other read of events is of the arrived visitors, also pruned by event_time.
    const recomputed = statement('CREATE TEMP TABLE recomputed');
    assert.match(recomputed, /JOIN anchors AS a ON COALESCE\(anonymous_id, user_id\) = a\.visitor_id/);
    assert.match(recomputed, /e\.event_time >= a\.anchor/);
    assert.match(recomputed, /e\.event_time >= TIMESTAMP_SUB\(@upto, INTERVAL @lookback_hours \+ 24 HOUR\)/);
    assert.deepEqual(eventReads(statements), [arrived, recomputed], 'events are read by these two only');
  });

  it('reads and writes sessions only from the oldest start a run can touch (partition pruning)', () => {
    const floor = /session_start >= TIMESTAMP_SUB\(@upto, INTERVAL @lookback_hours \+ 24 HOUR\)/;
    const touching = statements.filter((s) => s.includes('`p.events.sessions`'));
    assert.equal(touching.length, 5);
    for (const s of touching) assert.match(s, floor, s);
  });

  it('moves the watermark in the same transaction as the rows, forward only, when events arrived', () => {
    assertWatermark(statements, 'sessions', 'MERGE `p.events.sessions`');
    assert.equal(run.params['upto'], UPTO);
  });

  it('leaves bots and erased visitors out', () => {
    const arrived = statement('CREATE TEMP TABLE arrived');
    assert.match(arrived, /AND enriched\.bot IS NOT TRUE/);
    assert.match(arrived, /NOT IN \(SELECT identifier_hash FROM `p\.events\.identity_erasures`\)/);
    assert.match(statement('CREATE TEMP TABLE recomputed'), /AND e\.enriched\.bot IS NOT TRUE/);
  });

  it('replaces only the affected visitors’ sessions from their anchor on', () => {
    const gone = statement('CREATE TEMP TABLE gone');
    assert.match(
      gone,
      /JOIN anchors AS a ON a\.visitor_id = s\.visitor_id AND s\.session_start >= a\.anchor/,
    );
    assert.match(gone, /AND s\.session_id NOT IN \(SELECT session_id FROM recomputed\)/);
    assert.match(
      statement('DELETE FROM `p.events.sessions`'),
      /AND session_id IN \(SELECT session_id FROM gone\)/,
    );
  });

  it('writes only the sessions that changed (a run over unchanged data writes 0 rows)', () => {
    assert.match(
      statement('CREATE TEMP TABLE changed'),
      /WHERE t\.session_id IS NULL\s+OR t\.session_end != r\.session_end OR t\.events != r\.events/,
    );
    assert.match(statement('MERGE `p.events.sessions`'), /USING changed AS s/);
    assert.match(statements.at(-1) as string, /\(SELECT COUNT\(\*\) FROM changed\) AS written/);
  });

  it('splits sessions after the inactivity gap, 30 minutes unless configured', () => {
    assert.match(statement('CREATE TEMP TABLE recomputed'), /> @gap_seconds, TRUE\) AS gap/);
    assert.equal(run.params['gap_seconds'], 1800);
    const settings = {
      name: 'x',
      project: 'p',
      region: 'r',
      warehouse: { models: { session_gap_minutes: 45 } },
    };
    assert.equal(sessionsRunSql(modelOptions(settings), UPTO).params['gap_seconds'], 2700);
    assert.deepEqual(run.params['conversions'], [...DEFAULT_CONVERSIONS]);
  });

  it('names a session by its visitor and start, so a re-run finds the same row', () => {
    assert.match(
      statement('CREATE TEMP TABLE recomputed'),
      /TO_HEX\(SHA256\(CONCAT\(visitor_id, '\|', CAST\(UNIX_MICROS\(MIN\(event_time\)\) AS STRING\)\)\)\) AS session_id/,
    );
    assert.deepEqual(
      sessionColumns()
        .map((c) => c.name)
        .slice(0, 6),
      ['session_id', 'visitor_id', 'user_id', 'session_start', 'session_end', 'events'],
    );
  });
});

describe('models: the identity run’s SQL', () => {
  const run = identityRunSql(OPTIONS, UPTO);
  const statements = statementsOf(run.sql);
  const statement = finder(statements);

  it('reads events once, only past its watermark, with a partition filter on event_time', () => {
    const arrived = statement('CREATE TEMP TABLE arrived');
    assert.match(arrived, /WHERE received_at > since AND received_at <= @upto/);
    assert.match(arrived, /AND event_time >= TIMESTAMP_SUB\(@upto, INTERVAL @lookback_hours HOUR\)/);
    assert.match(arrived, /AND enriched\.bot IS NOT TRUE/);
    assert.deepEqual(eventReads(statements), [arrived]);
  });

  it('moves the watermark with the rows, and not while components are unsettled', () => {
    assertWatermark(statements, 'identity_map', 'MERGE `p.events.identity_map`');
    assert.match(statement('MERGE `p.events.model_watermarks`'), /NOT EXISTS \(SELECT 1 FROM unsettled\)/);
  });

  it('bounds its work: a fixed number of label passes over the contracted graph of what arrived', () => {
    assert.equal(
      statements.filter((s) => s.startsWith('CREATE OR REPLACE TEMP TABLE roots')).length,
      LABEL_PASSES,
    );
    // Stored identifiers stand for their person: the stored graph is never walked.
    assert.match(
      statement('CREATE TEMP TABLE labelled'),
      /IFNULL\(m\.person_id, i\.h\) AS label\nFROM ids AS i LEFT JOIN `p\.events\.identity_map` AS m ON m\.identifier = i\.identifier/,
    );
  });

  it('compares e-mails and phones hashed, and keeps erased identifiers out', () => {
    const ids = statement('CREATE TEMP TABLE ids');
    assert.match(
      ids,
      /CONCAT\('email:', IF\(REGEXP_CONTAINS\(email, r'\^\[0-9a-f\]\{64\}\$'\), email, TO_HEX\(SHA256\(LOWER\(TRIM\(email\)\)\)\)\)\)/,
    );
    assert.match(ids, /NOT IN \(SELECT identifier_hash FROM `p\.events\.identity_erasures`\)/);
  });

  it('records every merge old → new and keeps earlier merges resolving to the current person', () => {
    assert.match(
      statement('INSERT INTO `p.events.identity_merges`'),
      /SELECT old_person_id, new_person_id, new_person_id, CURRENT_TIMESTAMP\(\) FROM merged/,
    );
    assert.match(
      statement('UPDATE `p.events.identity_merges`'),
      /WHERE m\.current_person_id IN \(SELECT old_person_id FROM merged\)/,
    );
  });

  it('erasure deletes the person from identity_map, identity_merges and sessions, and lists their hashes', () => {
    const statements = erasureStatements({
      ...OPTIONS,
      ops: 'eventbus_ops',
      identityGraph: true,
      actionRuns: false,
      syncs: [],
    });
    const find = (table: string) => statements.find((s) => s.table === `events.${table}`)?.sql ?? '';
    assert.match(find('sessions'), /^DELETE FROM `p.events.sessions` WHERE visitor_id IN \(SELECT SUBSTR/);
    assert.match(
      find('identity_map'),
      /person_id IN \(SELECT person_id FROM `p.events.identity_map` WHERE identifier IN UNNEST\(@identifiers\)\)/,
    );
    assert.match(find('identity_merges'), /current_person_id IN/);
    assert.match(
      find('identity_erasures'),
      /^INSERT INTO `p.events.identity_erasures`[\s\S]*TO_HEX\(SHA256\(id\)\)/,
    );
  });
});

describe('models: what names a person to erase', () => {
  const hex = (t: string) => createHash('sha256').update(t).digest('hex');

  it('hashes a plain e-mail or phone as the identity run does, and takes ids and person ids as they are', () => {
    assert.equal(erasureIdentifier(' email: Ann@Example.com '), `email:${hex('ann@example.com')}`);
    assert.equal(erasureIdentifier('phone:+31 (0)6-1234'), `phone:${hex('31061234')}`);
    assert.equal(erasureIdentifier(`email:${hex('x')}`), `email:${hex('x')}`);
    assert.equal(erasureIdentifier('user_id:u-1'), 'user_id:u-1');
    assert.equal(erasureIdentifier(hex('p')), hex('p'));
  });

  it('refuses anything else', () => {
    for (const bad of ['ann@example.com', 'cookie:abc', 'user_id:', ':x', ''])
      assert.equal(erasureIdentifier(bad), undefined, bad);
  });
});

describe('models: in the plan', () => {
  const settings = { name: 'x', project: 'p', region: 'r', dataset: 'events' };

  it('lists the model tables and views in the events dataset unless warehouse.models.enabled is false', () => {
    const names = (s: typeof settings & Record<string, unknown>) => {
      const w = warehousePlan(s);
      return [...w.tables, ...w.views].map((t) => t.name);
    };
    for (const n of [
      'sessions',
      'identity_map',
      'identity_merges',
      'identity_erasures',
      'model_watermarks',
      'first_touch',
      'last_touch',
      'person_ids',
    ])
      assert.ok(names(settings).includes(n), n);
    const off = names({ ...settings, warehouse: { models: { enabled: false } } });
    assert.ok(!off.includes('sessions') && !off.includes('first_touch'));
  });

  it('bakes the configured conversions into the touch views', () => {
    const views = modelPlan({ ...settings, warehouse: { models: { conversions: ['book_demo'] } } }).views;
    assert.match(
      views.find((v) => v.name === 'first_touch')?.query ?? '',
      /WHERE e\.event_name IN \('book_demo'\)/,
    );
  });
});

describe('models: the scheduler’s Model job', () => {
  const settings = { name: 'x', project: 'p', region: 'r', dataset: 'events' };
  const ctx = (name: string, fence: () => Promise<void>) => ({
    run: { kind: MODEL_KIND, name, slot: '2026-11-02T10:15:00.000Z', trigger: 'schedule' as const },
    runId: `${MODEL_KIND}/${name}@2026-11-02T10:15:00.000Z`,
    cursor: null,
    chunk: 0,
    now: new Date('2026-11-02T10:15:07.000Z'),
    fence,
  });

  it('schedules each model every warehouse.models.every (15m by default), none when the models are off', async () => {
    const job = (s: Record<string, unknown>) =>
      modelJob({ settings: { ...settings, ...s }, query: async () => [] });
    assert.deepEqual(await job({}).scheduled(new Date()), [
      { kind: MODEL_KIND, name: 'identity_map', schedule: { every: '15m' } },
      { kind: MODEL_KIND, name: 'sessions', schedule: { every: '15m' } },
    ]);
    assert.deepEqual(
      (await job({ warehouse: { models: { every: '1h' } } }).scheduled(new Date()))[0]?.schedule,
      {
        every: '1h',
      },
    );
    assert.deepEqual(await job({ warehouse: { models: { enabled: false } } }).scheduled(new Date()), []);
  });

  it('runs one script per chunk up to its slot less the trail, after the fence', async () => {
    const calls: string[] = [];
    let upto: unknown;
    const job = modelJob({
      settings,
      query: async (sql, params) => {
        calls.push(sql.includes('sessions') && sql.includes('recomputed') ? 'sessions' : 'other');
        upto = params['upto'];
        return [{ written: 0 }];
      },
    });
    const result = await job.chunk(
      ctx('sessions', async () => {
        calls.push('fence');
      }),
    );
    assert.deepEqual(calls, ['fence', 'sessions']);
    assert.deepEqual(upto, new Date(Date.parse('2026-11-02T10:15:00.000Z') - MODEL_TRAIL_MS));
    assert.equal(result.done, true);
    assert.equal(result.summary?.['written'], 0);
  });
});
