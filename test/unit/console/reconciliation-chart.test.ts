/**
 * The destination page's reconciliation, shaped from the views' rows
 * (core/console/reconciliation-chart.ts): the 14-day window, each day's figures in order, the
 * top reasons of each gap (a refusal and a later refusal are one gap), and a platform that
 * reports no counts.
 */
import assert from 'node:assert/strict';
import {
  RECONCILIATION_DAYS,
  reconciliationWindow,
  shapeReconciliation,
  TOP_REASONS,
} from '../../../core/console/reconciliation-chart.ts';
import { NO_COUNTS } from '../../../core/warehouse/reconciliation.ts';

describe('reconciliation chart: the views’ rows as the page draws them', () => {
  it('reads the 14 days that end on the range’s last instant', () => {
    assert.equal(RECONCILIATION_DAYS, 14);
    assert.deepEqual(reconciliationWindow('2026-11-27T09:00:00.000Z'), {
      since: '2026-11-14',
      until: '2026-11-27',
    });
    // An end at midnight is exclusive: the day it starts is not in the range.
    assert.deepEqual(reconciliationWindow('2026-11-27T00:00:00.000Z'), {
      since: '2026-11-13',
      until: '2026-11-26',
    });
  });

  it('keeps the busiest reasons of each gap, refusals at once and later together', () => {
    const gap = (stage: string, reason: string, events: number) => ({
      day: '2026-11-26',
      destination: 'meta',
      stage,
      reason,
      events,
      sample_event_id: `${reason}-id`,
    });
    const [meta] = shapeReconciliation({
      days: [
        {
          day: '2026-11-26',
          destination: 'meta',
          platform: 'meta_capi',
          permitted: 10,
          sent: 8,
          accepted: 6,
          counted: 5,
          counted_source: 'meta pixel stats v25.0',
          sent_ratio: 0.8,
          accepted_ratio: 0.75,
          counted_ratio: 5 / 6,
        },
        { day: '2026-11-25', destination: 'meta', platform: 'meta_capi', permitted: 1, sent: 1, accepted: 1 },
      ],
      gaps: [
        gap('refused', 'bad email', 1),
        gap('refused_later', 'platform diagnostics: too old', 4),
        gap('refused', 'bad phone', 2),
        gap('refused', 'bad zip', 1),
        gap('unsent', 'timeout', 2),
        gap('another stage', 'unknown', 9),
        { ...gap('refused', 'other destination', 9), destination: 'hook' },
      ],
    });
    assert.deepEqual(
      meta?.days.map((d) => d.day),
      ['2026-11-25', '2026-11-26'],
    );
    const day = meta?.days[1];
    assert.equal(day?.not_reported, false);
    assert.equal(day?.counted, 5);
    assert.equal(TOP_REASONS, 3);
    assert.deepEqual(
      day?.reasons.map((r) => [r.gap, r.stage, r.reason, r.events, r.sample_event_id]),
      [
        ['unsent', 'unsent', 'timeout', 2, 'timeout-id'],
        ['refused', 'refused_later', 'platform diagnostics: too old', 4, 'platform diagnostics: too old-id'],
        ['refused', 'refused', 'bad phone', 2, 'bad phone-id'],
        ['refused', 'refused', 'bad email', 1, 'bad email-id'],
      ],
    );
    assert.deepEqual(meta?.days[0]?.reasons, []);
    assert.equal(meta?.days[0]?.counted, null);
    assert.equal(meta?.days[0]?.counted_ratio, null);
  });

  it('says a platform reports no counts, apart from one not read yet', () => {
    const [hook] = shapeReconciliation({
      days: [
        {
          day: '2026-11-26',
          destination: 'hook',
          platform: 'webhook',
          permitted: 3,
          sent: 3,
          accepted: 3,
          counted: null,
          counted_source: NO_COUNTS,
        },
      ],
      gaps: [],
    });
    assert.equal(hook?.days[0]?.not_reported, true);
    assert.equal(hook?.days[0]?.counted, null);
  });
});
