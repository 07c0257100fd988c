/** The console's replay requests (core/scheduler/replays.ts): checked field by field; their state read from object and lock. */
import assert from 'node:assert/strict';
import { FREE_LOCK } from '../../../core/scheduler/dispatch.ts';
import {
  parseReplayRequest,
  REPLAY_ID_PATTERN,
  type ReplayRecord,
  replayId,
  replayState,
  whereProblem,
} from '../../../core/scheduler/replays.ts';

const fields = (r: ReturnType<typeof parseReplayRequest>) => (r.ok ? [] : r.violations.map((v) => v.field));

describe('console replays: requests and their state', () => {
  it('takes a dead-letter replay with or without a limit, and a slice with times and a condition', () => {
    assert.deepEqual(parseReplayRequest({ destination: 'meta', source: 'dead-letters' }, ['meta']), {
      ok: true,
      request: { destination: 'meta', source: 'dead-letters' },
    });
    assert.deepEqual(
      parseReplayRequest({ destination: 'meta', source: 'dead-letters', limit: 100 }, ['meta']),
      { ok: true, request: { destination: 'meta', source: 'dead-letters', limit: 100 } },
    );
    assert.deepEqual(
      parseReplayRequest(
        {
          destination: 'meta',
          source: 'slice',
          from: '2026-11-01',
          to: '2026-11-02T12:00:00+01:00',
          where: " event_name = 'purchase' ",
        },
        ['meta'],
      ),
      {
        ok: true,
        request: {
          destination: 'meta',
          source: 'slice',
          from: '2026-11-01T00:00:00.000Z',
          to: '2026-11-02T11:00:00.000Z',
          where: "event_name = 'purchase'",
        },
      },
    );
  });

  it('names every wrong field at once', () => {
    assert.deepEqual(fields(parseReplayRequest({ destination: 'x', source: 'both', extra: 1 }, ['meta'])), [
      'destination',
      'source',
      'extra',
    ]);
    assert.deepEqual(
      fields(parseReplayRequest({ destination: 'meta', source: 'slice', from: 'yesterday' }, ['meta'])),
      ['from', 'to'],
    );
    assert.deepEqual(
      fields(
        parseReplayRequest({ destination: 'meta', source: 'slice', from: '2026-11-02', to: '2026-11-01' }, [
          'meta',
        ]),
      ),
      ['to'],
    );
    assert.deepEqual(
      fields(
        parseReplayRequest({ destination: 'meta', source: 'slice', from: '2026-01-01', to: '2026-03-01' }, [
          'meta',
        ]),
      ),
      ['to'],
      'more than 31 days',
    );
    assert.deepEqual(
      fields(
        parseReplayRequest(
          { destination: 'meta', source: 'slice', from: '2026-01-01', to: '2026-01-02', limit: 5 },
          ['meta'],
        ),
      ),
      ['limit'],
    );
    assert.deepEqual(
      fields(
        parseReplayRequest({ destination: 'meta', source: 'dead-letters', limit: 0, where: 'x' }, ['meta']),
      ),
      ['where', 'limit'],
    );
  });

  it('makes ids that sort by time and fit object and table names', () => {
    const a = replayId(new Date('2026-11-23T07:00:00.123Z'), 'AB-12cd34');
    const b = replayId(new Date('2026-11-23T07:00:01Z'), '00');
    assert.equal(a, '20261123T070000Z-ab12cd34');
    assert.match(a, REPLAY_ID_PATTERN);
    assert.ok(a < b);
  });

  it('reads queued, running, finished and given up from the object and the lock', () => {
    const record: ReplayRecord = {
      id: '20261123T070000Z-ab',
      destination: 'meta',
      source: 'dead-letters',
      requested_by: 'ana',
      requested_at: '2026-11-23T07:00:00.000Z',
      status: 'requested',
    };
    const run = 'Replay/20261123T070000Z-ab@2026-11-23T07:00:00.000Z';
    assert.deepEqual(replayState(record, FREE_LOCK, run), { state: 'queued' });
    assert.deepEqual(
      replayState(
        record,
        { ...FREE_LOCK, run, chunk: 2, cursor: { read: 4000, republished: 3990, skipped: 0, failed: 0 } },
        run,
      ),
      { state: 'running', chunk: 2, figures: { read: 4000, republished: 3990, skipped: 0, failed: 0 } },
    );
    assert.deepEqual(
      replayState(
        record,
        { ...FREE_LOCK, last_run: run, last_error: 'given up after 5 failed chunks: x' },
        run,
      ),
      {
        state: 'given up',
        error: 'given up after 5 failed chunks: x',
      },
    );
    const figures = { read: 1, republished: 1, skipped: 0, failed: 0 };
    assert.deepEqual(replayState({ ...record, status: 'finished', figures }, FREE_LOCK, run), {
      state: 'finished',
      figures,
    });
  });

  it('takes a slice condition only as one expression: FALSE) OR (TRUE is refused', () => {
    const slice = (where: string) =>
      parseReplayRequest(
        { destination: 'meta', source: 'slice', from: '2026-11-01', to: '2026-11-02', where },
        ['meta'],
      );
    for (const where of [
      'FALSE) OR (TRUE',
      "event_name = 'purchase') OR (TRUE",
      '(TRUE',
      'TRUE; DELETE FROM deliveries WHERE TRUE',
      'TRUE -- ) OR (TRUE',
      'TRUE /* ) OR ( */',
      'TRUE # comment',
      "event_name = 'open",
    ]) {
      const r = slice(where);
      assert.deepEqual(fields(r), ['where'], where);
    }
    for (const where of [
      "event_name = 'purchase'",
      `event_name IN ('a)', "b(") AND user_id = 'it\\'s'`,
      '(value > 10 OR value < 1) AND NOT EXISTS (SELECT 1 FROM UNNEST([1]) AS x WHERE x = 2)',
      '`event)name` = """)(""" OR TRUE',
      "url LIKE '%--%'",
    ])
      assert.equal(whereProblem(where), undefined, where);
    assert.match(whereProblem('FALSE) OR (TRUE') ?? '', /closes a parenthesis it did not open/);
  });
});
