/**
 * Each platform's API version, declared once in its folder (`core/platforms/<platform>/api-version.ts`):
 * present and well formed for every platform, and what its driver's requests carry — in the path
 * or the header the declaration names — unless a destination sends its own (`config.api_version`).
 */
import assert from 'node:assert/strict';
import type { DriverContext } from '../../../core/platforms/driver.ts';
import { PLATFORM_LIST } from '../../../core/platforms/platforms.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { NOW } from '../linkage/sample-events.ts';

// Every config key and secret role some platform reads, so each builds its request.
const CONFIG = {
  pixel_id: '1234',
  pixel_code: 'PIXEL',
  measurement_id: 'G-TEST',
  ad_account_id: '549755885175',
  tag_id: '343210',
  operating_account_id: '1234567890',
};
const SECRETS = {
  access_token: 'token',
  api_secret: 'secret',
  consumer_key: 'ck',
  consumer_secret: 'cs',
  access_token_secret: 'ats',
  signing_key: 'key',
};

const ctx = (destination: Destination): DriverContext => ({ destination, secrets: SECRETS, now: NOW });

/** The request a platform builds for one empty event: its URL and headers. */
function requestOf(type: Destination['type'], config: Destination['config'] = CONFIG) {
  const p = PLATFORM_LIST.find((x) => x.type === type);
  assert.ok(p && p.payload.kind === 'mapped', type);
  return p.payload.request([{}], ctx({ id: 'd', type, config }));
}

describe('platforms: API versions', () => {
  it('every platform declares its version, its sunset (an ISO date or null) and the source saying so', () => {
    for (const p of PLATFORM_LIST) {
      const a = p.apiVersion;
      assert.ok(a.source.length > 0, `${p.type}: source`);
      if (a.sunset !== null) assert.match(a.sunset, /^\d{4}-\d{2}-\d{2}$/, `${p.type}: sunset`);
      if (a.sunset !== null) assert.ok(!Number.isNaN(Date.parse(a.sunset)), `${p.type}: sunset is a day`);
      // A version is carried somewhere; no version, nowhere and no sunset.
      if (a.version === null) assert.deepEqual([a.carrier, a.sunset], ['none', null], p.type);
      else assert.notEqual(a.carrier, 'none', p.type);
      if (a.carrier === 'header') assert.ok(a.header, `${p.type}: header name`);
    }
  });

  for (const p of PLATFORM_LIST.filter((x) => x.apiVersion.version !== null))
    it(`${p.type}: the request carries the declared version ${p.apiVersion.version} (${p.apiVersion.carrier})`, () => {
      const a = p.apiVersion;
      const request = requestOf(p.type);
      if (a.carrier === 'header') assert.equal(request.headers[a.header ?? ''], a.version);
      else assert.ok(new URL(request.url).pathname.split('/').includes(a.version ?? ''), request.url);
    });

  for (const p of PLATFORM_LIST.filter((x) => x.apiVersion.override !== undefined))
    it(`${p.type}: config.${p.apiVersion.override} sends another version instead of the declared one`, () => {
      const a = p.apiVersion;
      const other = a.carrier === 'header' ? '202701' : 'v99.0';
      const request = requestOf(p.type, { ...CONFIG, [a.override ?? '']: other });
      const carried =
        a.carrier === 'header'
          ? request.headers[a.header ?? '']
          : new URL(request.url).pathname.split('/').find((s) => s === other);
      assert.equal(carried, other);
    });
});
