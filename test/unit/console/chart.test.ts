/** Which chart a query's result makes on the console's SQL page (core/console/chart.ts). */
import assert from 'node:assert/strict';
import { chartOf, MAX_LINES } from '../../../core/console/chart.ts';

const t = (h: number) => Date.UTC(2026, 10, 23, h) / 1000;
const iso = (h: number) => new Date(t(h) * 1000).toISOString();

describe('console: the chart of a query result', () => {
  it('draws one line per number column after a time column, summing rows of the same time', () => {
    const chart = chartOf(
      ['hour', 'events', 'users'],
      [
        { hour: iso(1), events: 5, users: '2' },
        { hour: iso(0), events: 3, users: null },
        { hour: iso(1), events: 1, users: '1' },
      ],
    );
    assert.deepEqual(chart, {
      xColumn: 'hour',
      x: [t(0), t(1)],
      series: [
        { name: 'events', values: [3, 6] },
        { name: 'users', values: [null, 3] },
      ],
    });
  });

  it('pivots time, text, number by the text, busiest first, the rest summed, missing rows as zero', () => {
    const sparse = chartOf(
      ['hour', 'event_name', 'events'],
      [
        { hour: iso(0), event_name: 'a', events: 2 },
        { hour: iso(1), event_name: 'b', events: 1 },
      ],
    );
    assert.deepEqual(sparse?.series, [
      { name: 'a', values: [2, 0] },
      { name: 'b', values: [0, 1] },
    ]);
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const rows = names.flatMap((n, i) => [
      { day: '2026-11-22', event_name: n, events: 10 - i },
      { day: '2026-11-23', event_name: n, events: 1 },
    ]);
    const chart = chartOf(['day', 'event_name', 'events'], rows);
    assert.equal(chart?.series.length, MAX_LINES + 1);
    assert.deepEqual(chart?.series[0], { name: 'a', values: [10, 1] });
    assert.deepEqual(chart?.series.at(-1), { name: '2 other event_name value(s)', values: [4 + 3, 2] });
    assert.deepEqual(chart?.x, [Date.UTC(2026, 10, 22) / 1000, Date.UTC(2026, 10, 23) / 1000]);
  });

  it('reads BigQuery’s time forms, and draws nothing for results that are not a time series', () => {
    assert.ok(
      chartOf(
        ['t', 'n'],
        [
          { t: '2026-11-23 04:00:00', n: 1 },
          { t: '2026-11-23 05:00:00 UTC', n: 2 },
        ],
      ),
    );
    assert.equal(
      chartOf(
        ['name', 'n'],
        [
          { name: 'a', n: 1 },
          { name: 'b', n: 2 },
        ],
      ),
      undefined,
    );
    assert.equal(chartOf(['t', 'n'], [{ t: iso(0), n: 1 }]), undefined, 'one row is no line');
    assert.equal(
      chartOf(
        ['t', 'n'],
        [
          { t: iso(0), n: 'x' },
          { t: iso(1), n: 2 },
        ],
      ),
      undefined,
    );
    assert.equal(
      chartOf(
        ['t', 'a', 'b', 'c'],
        [
          { t: iso(0), a: 'x', b: 'y', c: 1 },
          { t: iso(1), a: 'x', b: 'y', c: 2 },
        ],
      ),
      undefined,
    );
  });
});
