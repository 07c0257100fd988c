/**
 * `eventbus replay --destination … --from … --to …` as a backfill (cli/commands/replay-destination.ts,
 * docs/delivery.md#backfill): it asks when the destination went live, counts what it backfilled and
 * why the rest was not sent (the platform's age limit named) in its summary, and a cancel stops it
 * between pages, saying so. The warehouse, Pub/Sub and the ledger are in memory here; the e2e test
 * (test/slow/backfill.test.ts) runs it against the local environment.
 */
import assert from 'node:assert/strict';
import { replayDestinationSlice, replaySummary } from '../../../cli/commands/replay-destination.ts';
import type { DeliveryMessage } from '../../../core/delivery/message.ts';
import { checkSettings } from '../../../core/settings.ts';
import type { Settings } from '../../../schemas/settings.ts';

const settings = (() => {
  const r = checkSettings({
    name: 'backfill',
    project: 'backfill-project',
    region: 'europe-west1',
    destinations: [
      { id: 'ga4', type: 'ga4_mp', config: { measurement_id: 'G-ABC123' }, secrets: { api_secret: 's' } },
    ],
  });
  assert.ok(r.ok);
  return r.settings as Settings;
})();

const NOW = new Date('2026-11-27T12:00:00.000Z');
const row = (id: string, ageHours: number) => {
  const at = new Date(NOW.getTime() - ageHours * 3_600_000).toISOString();
  return {
    event_id: id,
    event_name: 'page_view',
    event_time: { value: at },
    received_at: { value: at },
    anonymous_id: `a-${id}`,
    consent: { analytics: 'granted' },
    page: { url: 'https://shop.example/' },
    event_data: '{}',
  };
};

type SliceInput = Parameters<typeof replayDestinationSlice>[0];

async function backfill(rows: readonly Record<string, unknown>[], overrides: Partial<SliceInput> = {}) {
  const published: DeliveryMessage[] = [];
  const report = await replayDestinationSlice({
    settings,
    project: 'backfill-project',
    dataset: 'events',
    destination: 'ga4',
    from: new Date('2026-11-20T00:00:00Z'),
    to: NOW,
    query: async () => rows,
    publish: async (m) => published.push(...m),
    writeLedger: async () => undefined,
    now: () => NOW,
    wentLive: async () => new Date(NOW.getTime() - 3_600_000),
    laterConsent: async () => [],
    batchSize: 2,
    ...overrides,
  });
  return { report, published };
}

describe('replay --destination --from --to: a backfill', () => {
  it('counts what it backfilled and names what the platform’s age limit refused', async () => {
    const { report, published } = await backfill([row('a', 10), row('b', 80), row('c', 90), row('d', 0.5)]);
    assert.deepEqual([report.read, report.republished, report.backfilled, report.skipped], [4, 2, 1, 2]);
    assert.equal(report.went_live, '2026-11-27T11:00:00.000Z');
    assert.deepEqual(
      published.map((m) => m.attributes['backfill']),
      ['true', undefined],
    );
    const [reason, count] = Object.entries(report.reasons ?? {})[0] ?? [];
    assert.match(reason ?? '', /GA4's 72-hour limit/);
    assert.equal(count, 2);
    const table = replaySummary(report, 'table');
    assert.match(table, /GA4's 72-hour limit/);
    assert.match(table, /backfilled/);
    assert.deepEqual(JSON.parse(replaySummary(report, 'json'))[0].reasons, report.reasons);
  });

  it('stops between pages when cancelled and says so', async () => {
    const rows = [row('a', 1), row('b', 2), row('c', 3), row('d', 4)];
    const cancel = new AbortController();
    let pages = 0;
    const { report: r2 } = await backfill(rows, {
      // The cancel comes while the first page is sent: it finishes, the second is never sent.
      publish: async () => {
        if (++pages === 1) cancel.abort();
      },
      signal: cancel.signal,
    });
    assert.deepEqual([r2.read, r2.republished, r2.cancelled], [2, 2, true]);
  });
});
