/**
 * The chaos run's trail of an undelivered event (scripts/chaos-undelivered.ts): only the events a
 * destination has no `delivered` row for, each with its ledger rows, how often it was received and
 * the log lines naming it, and how the services stopped; nothing (and no log read) when all were.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatUndelivered, undeliveredReport } from '../../../scripts/chaos-undelivered.ts';

describe('the chaos run: where an undelivered event stopped', () => {
  const ledger = [
    { event_id: 'e1', destination: 'hook', status: 'delivered' },
    {
      event_id: 'e2',
      destination: 'hook',
      status: 'folded',
      attempt: 5,
      reason: 'a copy',
      recorded_at: new Date(0),
    },
    { event_id: 'e2', destination: 'meta', status: 'delivered' },
    { event_id: 'e1', destination: 'meta', status: 'delivered' },
  ];
  // A stand-in for the warehouse: answers the two queries the trail asks, by their parameters.
  const q = async <T>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> => {
    const ids = params['ids'] as string[];
    const mine = ledger.filter((r) => r.destination === params['d'] && ids.includes(r.event_id));
    return (
      sql.includes("status = 'delivered'") ? mine.filter((r) => r.status === 'delivered') : mine
    ) as T[];
  };

  it('lists each missing event with its rows, receipts, log lines and the stops', async () => {
    const logDir = join(mkdtempSync(join(tmpdir(), 'chaos-trail-')), 'logs');
    mkdirSync(logDir);
    writeFileSync(
      join(logDir, 'forward.log'),
      'delivered e2 to hook\n{"message":"stopping: 3 push(es) in flight, waiting up to 4000 ms for them"}\n',
    );
    const report = await undeliveredReport({
      q,
      destinations: ['hook', 'meta'],
      acknowledged: new Set(['e1', 'e2']),
      received: new Map([['hook', new Map([['e2', 1]])]]),
      supervisorOutput: 'forward did not stop within 5000 ms of SIGTERM: killing it',
      logDir,
    });
    assert.deepEqual(
      report.undelivered.map((u) => [u.destination, u.eventId, u.received, u.ledger.length, u.log]),
      [['hook', 'e2', 1, 1, ['forward.log: delivered e2 to hook']]],
    );
    assert.match(
      report.undelivered[0]?.ledger[0] ?? '',
      /^folded attempt 5 a copy 1970-01-01T00:00:00.000Z$/,
    );
    assert.equal(report.stops.length, 2);
    const text = formatUndelivered(report.undelivered, report.stops).join('\n');
    assert.match(text, /hook e2: received 1×, 1 ledger rows/);
    assert.match(text, /how services stopped:\n {2}forward did not stop/);
  });

  it('says nothing and reads no log when every event was delivered', async () => {
    const report = await undeliveredReport({
      q,
      destinations: ['meta'],
      acknowledged: new Set(['e1', 'e2']),
      received: new Map(),
      supervisorOutput: 'forward did not stop within 5000 ms of SIGTERM: killing it',
      logDir: '/nonexistent',
    });
    assert.deepEqual(report, { undelivered: [], stops: [] });
    assert.deepEqual(formatUndelivered(report.undelivered, report.stops), []);
  });
});
