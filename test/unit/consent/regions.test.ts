/**
 * Consent Mode's region defaults where the visitor is (core/consent/regions.ts, docs/delivery.md
 * "Consent Mode region defaults"), read on their own: every purpose under its Consent Mode name,
 * only the purposes a default states, a country's default against a subdivision's and another
 * country's, and nothing read from an event without defaults, geography or a consent group.
 */
import assert from 'node:assert/strict';
import { regionalWords } from '../../../core/consent/regions.ts';
import type { StoredEvent } from '../../../core/event.ts';

const visitor = (country: string | undefined, region_defaults: unknown, consent = true): StoredEvent =>
  ({
    event_id: 'e-regions',
    event_name: 'page_view',
    event_time: '2026-03-01T10:00:00.000Z',
    event_data: {},
    ...(consent ? { consent: { region_defaults } } : {}),
    ...(country === undefined ? {} : { enriched: { geo: { country } } }),
  }) as StoredEvent;
const word = (state: string, name: string, region: string, why = '') => ({
  state,
  reason: `consent ${name} ${state} (Consent Mode default for region ${region}${why})`,
});

describe("consent: Consent Mode's region defaults for the visitor", () => {
  it('reads each purpose under its Consent Mode name, and only the purposes a default states', () => {
    const all = [
      { region: ['es'], analytics_storage: 'denied', ad_storage: 'granted', ad_personalization: 'denied' },
    ];
    assert.deepEqual(regionalWords(visitor('ES', all)), {
      analytics: word('denied', 'analytics_storage', 'ES'),
      ads: word('granted', 'ad_storage', 'ES'),
      ad_personalization: word('denied', 'ad_personalization', 'ES'),
    });
  });

  it("another country's default, or a subdivision's that grants, says nothing for the visitor", () => {
    assert.deepEqual(regionalWords(visitor('ES', [{ region: ['FR'], ad_storage: 'denied' }])), {});
    assert.deepEqual(regionalWords(visitor('US', [{ region: ['US-CA'], ad_storage: 'granted' }])), {});
    assert.deepEqual(regionalWords(visitor(undefined, [{ region: ['US-CA'], ad_storage: 'granted' }])), {});
  });

  it('a region of three letters is neither the country nor one of its subdivisions', () => {
    assert.deepEqual(regionalWords(visitor('ES', [{ region: ['ESP'], ad_storage: 'denied' }])), {});
  });

  it("the country's own denial is the one named, not a subdivision's beside it", () => {
    const both = [{ region: ['ES-CT', 'ES'], ad_storage: 'denied' }];
    assert.deepEqual(regionalWords(visitor('es', both)), { ads: word('denied', 'ad_storage', 'ES') });
    assert.deepEqual(regionalWords(visitor('ES', [{ region: ['ES-CT'], ad_storage: 'denied' }])), {
      ads: word('denied', 'ad_storage', 'ES-CT', '; the visitor is in ES'),
    });
  });

  it('no defaults, an empty list, no consent group or no country read nothing, or as an unknown region', () => {
    assert.equal(regionalWords(visitor('ES', [])), undefined);
    assert.equal(regionalWords(visitor('ES', 'ES')), undefined);
    assert.equal(regionalWords(visitor('ES', undefined, false)), undefined);
    const denies = [{ region: ['ES'], ad_storage: 'denied' }];
    const unknown = { ads: word('denied', 'ad_storage', 'ES', "; the visitor's region is unknown") };
    assert.deepEqual(regionalWords({ ...visitor(undefined, denies), enriched: {} } as StoredEvent), unknown);
    assert.deepEqual(
      regionalWords({ ...visitor(undefined, denies), enriched: { geo: {} } } as StoredEvent),
      unknown,
    );
  });
});
