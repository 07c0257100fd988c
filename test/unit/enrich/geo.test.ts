/**
 * Geography from the IP (adapters/enrichment.ts over DB-IP's IP to Country Lite database,
 * CC BY 4.0): addresses of the regional Internet registries' own web servers, IPv4 and IPv6.
 * The expected countries are the database's answers for them (DB-IP places the servers, not the
 * registries' seats: LACNIC's are in Brazil, AFRINIC's in South Africa).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { countryDatabasePath, countryLookup } from '../../../adapters/enrichment.ts';
import { createEnricher } from '../../../core/enrich/index.ts';
import type { StoredEvent } from '../../../core/event.ts';
import type { Settings } from '../../../schemas/settings.ts';

const geo = countryLookup(readFileSync(countryDatabasePath()));

describe('enrichment: country from the IP (DB-IP Lite)', () => {
  const cases: [string, string, string][] = [
    ['RIPE NCC, IPv4', '193.0.6.139', 'NL'],
    ['RIPE NCC, IPv6', '2001:67c:2e8:22::c100:68b', 'NL'],
    ['APNIC, IPv4', '203.119.101.61', 'AU'],
    ['APNIC, IPv6', '2001:dd8:8:701::2', 'AU'],
    ['ARIN/IANA, IPv4', '192.0.32.8', 'US'],
    ['ARIN/IANA, IPv6', '2620:0:2d0:200::8', 'US'],
    ['LACNIC, IPv4', '200.3.14.10', 'BR'],
    ['AFRINIC, IPv6', '2001:42d0:0:200::6', 'ZA'],
  ];
  for (const [what, ip, country] of cases)
    it(`${what} ${ip} → ${country}`, () => assert.equal(geo(ip), country));

  it('knows no country for private, loopback, documentation addresses or text that is no address', () => {
    for (const ip of ['10.0.0.1', '::1', '203.0.113.9', 'not-an-ip', ''])
      assert.equal(geo(ip), undefined, ip);
  });

  const settings = (geoSetting: 'off' | 'country'): Settings => ({
    name: 't',
    project: 'p',
    region: 'europe-west1',
    enrichment: { geo: geoSetting },
  });
  const event: StoredEvent = {
    event_name: 'page_view',
    event_id: 'e',
    event_time: '2026-11-02T09:30:00.000Z',
    device: { ip: '193.0.6.139' },
    event_data: {},
  };

  it('is off unless settings.enrichment.geo is country', () => {
    assert.equal(createEnricher(settings('off'), { geo })?.(event)?.geo, undefined);
    assert.deepEqual(createEnricher(settings('country'), { geo })?.(event)?.geo, { country: 'NL' });
  });

  it('refuses to start with geo on and no database loaded', () => {
    assert.throws(() => createEnricher(settings('country')), /no geography database/);
  });
});
