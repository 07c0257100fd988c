/**
 * The Alerts section's state of each alert (core/alerts/status.ts): firing from its last `fired`
 * notice until a later `resolved` one, clear since the last resolve (or its first evaluation),
 * never evaluated without a row; and the query reads a bounded window of the partitioned table.
 */
import assert from 'node:assert/strict';
import { ALERT_STATUS_DAYS, alertStatusSql, shapeAlertStatus } from '../../../core/alerts/status.ts';

describe('alert status', () => {
  const rows = [
    {
      alert: 'firing-one',
      first_at: '2026-11-01T00:00:00Z',
      last_at: '2026-11-03T00:00:00Z',
      fired_at: '2026-11-02T10:00:00Z',
      resolved_at: '2026-11-02T09:00:00Z',
    },
    {
      alert: 'recovered',
      first_at: '2026-11-01T00:00:00Z',
      last_at: '2026-11-03T00:00:00Z',
      fired_at: '2026-11-02T10:00:00Z',
      resolved_at: '2026-11-02T11:00:00Z',
    },
    { alert: 'quiet', first_at: '2026-11-01T00:00:00Z', last_at: '2026-11-03T00:00:00Z', fired_at: null },
  ];

  it('says firing, clear or never evaluated, and since when', () => {
    assert.deepEqual(shapeAlertStatus(['firing-one', 'recovered', 'quiet', 'new'], rows), [
      {
        alert: 'firing-one',
        state: 'firing',
        since: '2026-11-02T10:00:00.000Z',
        last_evaluated: '2026-11-03T00:00:00.000Z',
      },
      {
        alert: 'recovered',
        state: 'clear',
        since: '2026-11-02T11:00:00.000Z',
        last_evaluated: '2026-11-03T00:00:00.000Z',
      },
      {
        alert: 'quiet',
        state: 'clear',
        since: '2026-11-01T00:00:00.000Z',
        last_evaluated: '2026-11-03T00:00:00.000Z',
      },
      { alert: 'new', state: 'never evaluated', since: null, last_evaluated: null },
    ]);
  });

  it('reads only the recent partitions of the table it is given', () => {
    const sql = alertStatusSql('`p.eventbus_ops.alert_states`');
    assert.match(sql, /FROM `p\.eventbus_ops\.alert_states`/);
    assert.match(
      sql,
      new RegExp(
        `recorded_at >= TIMESTAMP_SUB\\(CURRENT_TIMESTAMP\\(\\), INTERVAL ${ALERT_STATUS_DAYS} DAY\\)`,
      ),
    );
  });
});
