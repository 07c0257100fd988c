/**
 * The platforms' counting reads (docs/delivery.md, "Counted by the platform"): a platform whose
 * facts say it reads a count has the read in its folder and the other way round, and each read
 * builds the documented request and reads the documented answer.
 */
import assert from 'node:assert/strict';
import { countOf, countsEnabled, sumByName } from '../../../core/platforms/counts.ts';
import { GA4_COUNTS } from '../../../core/platforms/ga4/counts.ts';
import { GA4_EXPORT_JOIN } from '../../../core/platforms/ga4/facts.ts';
import { ga4MpDriver } from '../../../core/platforms/ga4/index.ts';
import { META_COUNTS } from '../../../core/platforms/meta/counts.ts';
import { PLATFORM_LIST } from '../../../core/platforms/platforms.ts';
import { configProblem } from '../../../core/platforms/prepare.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { storedEvent } from '../linkage/sample-events.ts';

describe('platform counts: where each platform’s own count is read', () => {
  it('a platform reads a count exactly when its facts say it does', () => {
    for (const p of PLATFORM_LIST)
      assert.equal(
        'reads' in p.counts,
        p.countReads !== undefined,
        `${p.type}: facts and countReads disagree`,
      );
    assert.deepEqual(
      PLATFORM_LIST.filter((p) => p.countReads).map((p) => p.type),
      ['meta_capi', 'ga4_mp', 'google_ads'],
    );
  });

  it('a destination with counts or diagnostics on still sends its events', () => {
    for (const [type, config] of [
      ['meta_capi', { pixel_id: '42', counts: true, diagnostics: true }],
      ['ga4_mp', { measurement_id: 'G-1', counts: true, counts_property: '7' }],
    ] as const) {
      const p = PLATFORM_LIST.find((x) => x.type === type);
      assert.ok(p);
      const destination = { id: 'd', type, config } as unknown as Destination;
      const secrets = { access_token: 't', api_secret: 's' };
      assert.equal(configProblem({ destination, secrets, now: new Date() }, p.requirements), undefined, type);
      // A string where the boolean belongs is still refused.
      const quoted = { ...destination, config: { ...config, counts: 'true' } } as unknown as Destination;
      assert.match(
        String(configProblem({ destination: quoted, secrets, now: new Date() }, p.requirements)),
        /config.counts must be a boolean/,
      );
    }
  });

  it('turns on with the boolean only', () => {
    const d = (config: Record<string, unknown>, enabled = true) =>
      ({ id: 'm', type: 'meta_capi', enabled, config }) as unknown as Destination;
    assert.equal(countsEnabled(d({ counts: true })), true);
    assert.equal(countsEnabled(d({ counts: 'true' })), false);
    assert.equal(countsEnabled(d({ counts: true }, false)), false);
  });

  it('asks Meta’s pixel stats for the day in unix seconds and adds up its hours', () => {
    const d = {
      id: 'm',
      type: 'meta_capi',
      config: { pixel_id: '42', counts: true },
    } as unknown as Destination;
    const r = META_COUNTS.request(d, '2026-03-02', 'tok');
    const u = new URL(r.url);
    assert.equal(u.origin + u.pathname, 'https://graph.facebook.com/v25.0/42/stats');
    assert.equal(r.redactedUrl, 'https://graph.facebook.com/v25.0/42/stats');
    assert.deepEqual(Object.fromEntries(u.searchParams), {
      aggregation: 'event',
      start_time: String(Date.parse('2026-03-02T00:00:00Z') / 1000),
      end_time: String(Date.parse('2026-03-03T00:00:00Z') / 1000),
      access_token: 'tok',
    });
    assert.deepEqual(
      META_COUNTS.read(
        {
          data: [
            { start_time: '2026-03-02T10:00:00+0000', data: [{ value: 'Purchase', count: 3 }] },
            {
              start_time: '2026-03-02T11:00:00+0000',
              data: [
                { value: 'Purchase', count: 2 },
                { value: 'Lead', count: '1' },
                { value: 'X', count: -1 },
              ],
            },
          ],
        },
        '2026-03-02',
      ),
      [
        { event_name: 'Purchase', counted: 5 },
        { event_name: 'Lead', counted: 1 },
      ],
    );
    assert.equal(META_COUNTS.read({ error: { message: 'no' } }, '2026-03-02'), undefined);
    assert.match(String(META_COUNTS.problem({ ...d, config: {} })), /pixel_id/);
  });

  it('asks GA4’s runReport for eventCount by eventName on the day, under a Bearer token', () => {
    const d = {
      id: 'g',
      type: 'ga4_mp',
      config: { measurement_id: 'G-1', counts: true },
      user_deletion: { property: '777' },
    } as unknown as Destination;
    const r = GA4_COUNTS.request(d, '2026-03-02', 'ya29');
    assert.equal(r.url, 'https://analyticsdata.googleapis.com/v1beta/properties/777:runReport');
    assert.equal(r.headers?.['authorization'], 'Bearer ya29');
    assert.deepEqual(JSON.parse(r.body ?? ''), {
      dateRanges: [{ startDate: '2026-03-02', endDate: '2026-03-02' }],
      dimensions: [{ name: 'eventName' }],
      metrics: [{ name: 'eventCount' }],
      limit: '10000',
    });
    assert.deepEqual(
      GA4_COUNTS.read(
        {
          metricHeaders: [{ name: 'eventCount' }],
          rows: [{ dimensionValues: [{ value: 'purchase' }], metricValues: [{ value: '18' }] }],
        },
        '2026-03-02',
      ),
      [{ event_name: 'purchase', counted: 18 }],
    );
    // A report with no rows is a day GA4 counted nothing on, not a broken answer.
    assert.deepEqual(
      GA4_COUNTS.read({ metricHeaders: [{ name: 'eventCount' }], rowCount: 0 }, '2026-03-02'),
      [],
    );
    assert.match(
      String(GA4_COUNTS.problem({ id: 'g', type: 'ga4_mp', config: {} } as unknown as Destination)),
      /counts_property/,
    );
  });

  it('a GA4 destination linking its BigQuery export sends our event id as the event_id parameter', () => {
    const d = (config: Record<string, unknown>) =>
      ({ id: 'g', type: 'ga4_mp', config: { measurement_id: 'G-1', ...config } }) as unknown as Destination;
    const params = (destination: Destination) => {
      // GA4 takes an event up to 72 hours old: one of now.
      const event = { ...storedEvent('purchase'), event_time: new Date().toISOString() };
      const prepared = ga4MpDriver.prepare(event, {
        destination,
        secrets: { api_secret: 's' },
        now: new Date(),
      });
      assert.ok(prepared.ok, JSON.stringify(prepared));
      return [event.event_id, JSON.parse(prepared.request.body).events[0].params.event_id];
    };
    const [id, sent] = params(d({ counts_bigquery_export: 'my-project.analytics_4242' }));
    assert.equal(sent, id);
    assert.equal(params(d({}))[1], undefined);
    assert.equal(
      GA4_EXPORT_JOIN.linked(d({ counts_bigquery_export: 'my-project.analytics_4242' })),
      'my-project.analytics_4242',
    );
    const p = PLATFORM_LIST.find((x) => x.type === 'ga4_mp');
    assert.ok(p);
    assert.match(
      String(
        configProblem(
          {
            destination: d({ counts_bigquery_export: 'my-project.events' }),
            secrets: { api_secret: 's' },
            now: new Date(),
          },
          p.requirements,
        ),
      ),
      /analytics_<property id>/,
    );
  });

  it('reads counts as Google’s int64 strings or numbers, nothing else', () => {
    assert.equal(countOf('12'), 12);
    assert.equal(countOf(3), 3);
    assert.equal(countOf('1.5'), undefined);
    assert.equal(countOf(-1), undefined);
    assert.deepEqual(
      sumByName([
        { event_name: 'a', counted: 1 },
        { event_name: 'a', counted: 2 },
      ]),
      [{ event_name: 'a', counted: 3 }],
    );
  });
});
