/**
 * The sessions model's SQL (core/sessions.ts, docs/sessions.md), asserted on the generated text:
 * each run reads only past its watermark with a partition filter, replaces only the affected
 * visitors' sessions, writes no unchanged row, and moves the watermark in the same transaction.
 */
import assert from 'node:assert/strict';
import { DEFAULT_CONVERSIONS, sessionColumns, sessionsRunSql } from '../../../core/sessions.ts';

const UPTO = new Date('2026-11-02T10:00:00.000Z');
const run = sessionsRunSql({ project: 'p', dataset: 'events' }, UPTO);
const statements = run.sql
  .split(/;\n/)
  .map((s) => s.replace(/^(--[^\n]*\n|\s*\n)+/g, '').trim())
  .filter(Boolean);
const statement = (start: string) => {
  const found = statements.filter((s) => s.startsWith(start));
  assert.equal(found.length, 1, `one statement starting ${start}`);
  return found[0] as string;
};

describe('sessions: the incremental run’s SQL', () => {
  it('reads events only past its watermark, up to @upto, with a partition filter on event_time', () => {
    const arrived = statement('CREATE TEMP TABLE arrived');
    assert.match(arrived, /FROM `p\.events\.events`/);
    assert.match(arrived, /WHERE received_at > watermark AND received_at <= @upto/);
    assert.match(arrived, /AND event_time >= TIMESTAMP_SUB\(@upto, INTERVAL @lookback_hours HOUR\)/);
    // The only other read of events is of the arrived visitors, also pruned by event_time.
    const recomputed = statement('CREATE TEMP TABLE recomputed');
    assert.match(recomputed, /JOIN anchors AS a ON COALESCE\(anonymous_id, user_id\) = a\.visitor_id/);
    assert.match(recomputed, /e\.event_time >= a\.anchor/);
    assert.match(recomputed, /e\.event_time >= TIMESTAMP_SUB\(@upto, INTERVAL @lookback_hours \+ 24 HOUR\)/);
    assert.equal(
      statements.filter((s) => /`p\.events\.events(_dedup)?`/.test(s)).length,
      2,
      'events are read by these two statements only',
    );
  });

  it('takes the watermark from model_watermarks, the epoch on a first run', () => {
    assert.match(
      statement('DECLARE watermark'),
      /IFNULL\(MAX\(watermark\), TIMESTAMP '1970-01-01'\) FROM `p\.events\.model_watermarks` WHERE model = 'sessions'/,
    );
  });

  it('moves the watermark in the same transaction as the rows, and only forwards', () => {
    const begin = statements.indexOf('BEGIN TRANSACTION');
    const commit = statements.indexOf('COMMIT TRANSACTION;');
    const move = statements.findIndex((s) => s.startsWith('MERGE `p.events.model_watermarks`'));
    const rows = statements.findIndex((s) => s.startsWith('MERGE `p.events.sessions`'));
    assert.ok(begin >= 0 && begin < rows && rows < move && move < commit, statements.join('\n---\n'));
    assert.match(statements[move] as string, /WHEN MATCHED AND w\.watermark < n\.watermark THEN UPDATE/);
  });

  it('replaces only the affected visitors’ sessions from their anchor on', () => {
    const del = statement('DELETE FROM `p.events.sessions`');
    assert.match(
      del,
      /EXISTS \(SELECT 1 FROM anchors AS a WHERE a\.visitor_id = s\.visitor_id AND s\.session_start >= a\.anchor\)/,
    );
    assert.match(del, /s\.session_id NOT IN \(SELECT session_id FROM recomputed\)/);
  });

  it('writes no row for a session that did not change (a run over unchanged data writes 0 rows)', () => {
    const merge = statement('MERGE `p.events.sessions`');
    assert.match(merge, /WHEN MATCHED AND \(t\.session_end != s\.session_end OR t\.events != s\.events/);
    assert.doesNotMatch(merge, /WHEN MATCHED THEN/);
  });

  it('splits sessions after the inactivity gap, 30 minutes unless configured', () => {
    assert.match(statement('CREATE TEMP TABLE recomputed'), /> @gap_seconds, TRUE\) AS gap/);
    assert.equal(run.params['gap_seconds'], 1800);
    assert.equal(
      sessionsRunSql({ project: 'p', dataset: 'events', gapMinutes: 45 }, UPTO).params['gap_seconds'],
      2700,
    );
    assert.deepEqual(run.params['conversions'], [...DEFAULT_CONVERSIONS]);
    assert.equal(run.params['upto'], '2026-11-02T10:00:00.000Z');
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
