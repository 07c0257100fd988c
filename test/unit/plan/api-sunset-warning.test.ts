/**
 * The API sunset warning of `settings check`, on a fixed clock: a destination whose platform's
 * declared API version is retired within 60 days is told so (59 days out, not 61), with the
 * version, the day, the source and what to do; a destination sending its own version, a disabled
 * one and a platform without a published sunset are not.
 */
import assert from 'node:assert/strict';
import { apiSunsetWarnings, SUNSET_WARNING_DAYS } from '../../../core/plan-warnings/api-sunset.ts';
import { META_API } from '../../../core/platforms/meta/api-version.ts';
import { PLATFORM_LIST } from '../../../core/platforms/platforms.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';

const DAY_MS = 86_400_000;
const SUNSET_MS = Date.parse(`${META_API.sunset}T00:00:00Z`);
/** The clock `days` days before Meta's declared sunset. */
const daysBefore = (days: number) => new Date(SUNSET_MS - days * DAY_MS);
const META: Destination = { id: 'meta', type: 'meta_capi', config: { pixel_id: '1234' } };
const settings = (...destinations: Destination[]): Settings => ({
  name: 'shop',
  project: 'shop-project',
  region: 'europe-west1',
  destinations,
});

describe('plan: API sunset warning', () => {
  it('warns 59 days before the sunset, naming the destination, version, day, source and what to do', () => {
    assert.equal(SUNSET_WARNING_DAYS, 60);
    const [warning, ...rest] = apiSunsetWarnings(settings(META), daysBefore(59));
    assert.deepEqual(rest, []);
    assert.match(warning ?? '', /^destination meta: meta_capi sends API version v25\.0/);
    assert.ok(warning?.includes(`retires on ${META_API.sunset}, in 59 days`), warning);
    assert.ok(warning?.includes(META_API.source), warning);
    assert.match(warning ?? '', /Upgrade eventbus/);
    assert.match(warning ?? '', /destinations\[id=meta\]\.config\.api_version/);
  });

  it('says nothing 61 days before the sunset', () => {
    assert.deepEqual(apiSunsetWarnings(settings(META), daysBefore(61)), []);
  });

  it('says the version is retired once the sunset has passed', () => {
    const [warning] = apiSunsetWarnings(settings(META), daysBefore(-3));
    assert.ok(warning?.includes(`retired on ${META_API.sunset}`), warning);
  });

  it('says nothing for a destination sending its own version, nor for a disabled one', () => {
    const own = { ...META, config: { pixel_id: '1234', api_version: 'v27.0' } };
    assert.deepEqual(apiSunsetWarnings(settings(own), daysBefore(10)), []);
    assert.deepEqual(apiSunsetWarnings(settings({ ...META, enabled: false }), daysBefore(10)), []);
  });

  it('never warns for a platform that publishes no sunset, whatever the day', () => {
    const undated = PLATFORM_LIST.filter((p) => p.apiVersion.sunset === null).map(
      (p): Destination => ({ id: p.type.replaceAll('_', '-'), type: p.type }),
    );
    assert.ok(undated.length > 0);
    assert.deepEqual(apiSunsetWarnings(settings(...undated), new Date('2100-01-01T00:00:00Z')), []);
  });
});
