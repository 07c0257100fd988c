/**
 * Device facts from User-Agent Client Hints (core/enrich/client-hints.ts) over the user agent.
 * Header values are MDN's examples (developer.mozilla.org, Web/HTTP/Headers/Sec-CH-UA,
 * -Full-Version-List, -Model, -Platform-Version: Chrome 96 and 98 on Windows 10, Linux and a
 * Pixel 3 XL) and the brand list of a current Chrome (`"Chromium";v="124", "Google Chrome";v="124",
 * "Not-A.Brand";v="99"`); the user agents are the reduced forms Chromium's "User-Agent Reduction"
 * page documents (`Chrome/<major>.0.0.0`, `Windows NT 10.0` for every Windows, `Android 10; K`).
 */
import assert from 'node:assert/strict';
import { parseBrandList, withClientHints } from '../../../core/enrich/client-hints.ts';
import { createEnricher } from '../../../core/enrich/index.ts';
import type { StoredEvent } from '../../../core/event.ts';
import type { ClientHints } from '../../../schemas/context.ts';
import type { Settings } from '../../../schemas/settings.ts';

const REDUCED_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const REDUCED_ANDROID =
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/96.0.0.0 Mobile Safari/537.36';
const REDUCED_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/98.0.0.0 Safari/537.36';

const settings: Settings = { name: 't', project: 'p', region: 'europe-west1' };
const enrich = createEnricher(settings);
const event = (user_agent: string, client_hints?: ClientHints): StoredEvent => ({
  event_name: 'page_view',
  event_id: 'e',
  event_time: '2026-11-02T09:30:00.000Z',
  device: { user_agent, ...(client_hints ? { client_hints } : {}) },
  event_data: {},
});

describe('enrichment: client hints', () => {
  describe('brand lists (RFC 8941 lists of strings)', () => {
    it('reads each brand and its v parameter, keeping a GREASE brand’s ; and spaces', () => {
      assert.deepEqual(parseBrandList('" Not A;Brand";v="99", "Chromium";v="98", "Google Chrome";v="98"'), [
        { brand: ' Not A;Brand', version: '99' },
        { brand: 'Chromium', version: '98' },
        { brand: 'Google Chrome', version: '98' },
      ]);
    });

    it('reads escapes, ignores other parameters and non-string items, and stops at a fault', () => {
      assert.deepEqual(parseBrandList('"A\\"B";x=1;v="2", token;v="3", "C"'), [
        { brand: 'A"B', version: '2' },
        { brand: 'C', version: '' },
      ]);
      assert.deepEqual(parseBrandList('"Chromium";v="124", "Unterminated'), [
        { brand: 'Chromium', version: '124' },
      ]);
      assert.deepEqual(parseBrandList(''), []);
    });
  });

  it('Chrome 124 on Windows 11: the full version and Windows 11, which the frozen user agent hides', () => {
    const hints: ClientHints = {
      ua: '"Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99"',
      full_version_list:
        '"Chromium";v="124.0.6367.91", "Google Chrome";v="124.0.6367.91", "Not-A.Brand";v="99.0.0.0"',
      mobile: '?0',
      platform: '"Windows"',
      platform_version: '"15.0.0"',
    };
    assert.deepEqual(enrich?.(event(REDUCED_WINDOWS))?.device, {
      browser: 'Chrome',
      browser_version: '124.0.0.0',
      os: 'Windows',
      os_version: '10',
      type: 'desktop',
    });
    assert.deepEqual(enrich?.(event(REDUCED_WINDOWS, hints))?.device, {
      browser: 'Chrome',
      browser_version: '124.0.6367.91',
      os: 'Windows',
      os_version: '11',
      type: 'desktop',
    });
  });

  it('MDN’s Windows 10 example: platform version 10.0.0 is Windows 10', () => {
    const device = withClientHints(
      { browser: 'Chrome', browser_version: '96.0.0.0', os: 'Windows', os_version: '10', type: 'desktop' },
      {
        ua: '" Not A;Brand";v="99", "Chromium";v="96", "Google Chrome";v="96"',
        mobile: '?0',
        platform: '"Windows"',
        platform_version: '"10.0.0"',
      },
    );
    assert.equal(device?.os_version, '10');
    assert.equal(device?.browser, 'Chrome');
    // Only the significant version is known: the user agent's own is kept.
    assert.equal(device?.browser_version, '96.0.0.0');
  });

  it('MDN’s Linux example with the full version list', () => {
    assert.deepEqual(
      enrich?.(
        event(REDUCED_LINUX, {
          ua: '" Not A;Brand";v="99", "Chromium";v="98", "Google Chrome";v="98"',
          mobile: '?0',
          full_version_list:
            '" Not A;Brand";v="99.0.0.0", "Chromium";v="98.0.4750.0", "Google Chrome";v="98.0.4750.0"',
          platform: '"Linux"',
        }),
      )?.device,
      { browser: 'Chrome', browser_version: '98.0.4750.0', os: 'Linux', type: 'desktop' },
    );
  });

  it('MDN’s Pixel 3 XL example: the model the reduced Android user agent replaced with K', () => {
    const device = enrich?.(
      event(REDUCED_ANDROID, {
        ua: '" Not A;Brand";v="99", "Chromium";v="96", "Google Chrome";v="96"',
        mobile: '?1',
        platform: '"Android"',
        model: '"Pixel 3 XL"',
      }),
    )?.device;
    assert.equal(device?.model, 'Pixel 3 XL');
    assert.equal(device?.type, 'mobile');
    assert.equal(device?.os, 'Android');
    assert.equal(device?.browser, 'Chrome');
  });

  it('names the browser a Chromium brand list puts beside the engine (Edge, a brand the user agent hides)', () => {
    const device = withClientHints(
      {
        browser: 'Chrome',
        browser_version: '124.0.0.0',
        os: 'Mac OS',
        os_version: '10.15.7',
        type: 'desktop',
      },
      {
        ua: '"Chromium";v="124", "Microsoft Edge";v="124", "Not-A.Brand";v="99"',
        platform: '"macOS"',
        platform_version: '"14.4.1"',
      },
    );
    assert.deepEqual(device, {
      browser: 'Edge',
      browser_version: '124',
      os: 'Mac OS',
      os_version: '14.4.1',
      type: 'desktop',
    });
  });

  it('falls back to Chromium when it is the only real brand, and ignores empty and Unknown values', () => {
    const device = withClientHints(undefined, {
      ua: '"Not/A)Brand";v="8", "Chromium";v="126"',
      platform: '"Unknown"',
      model: '""',
    });
    assert.deepEqual(device, { browser: 'Chromium', browser_version: '126' });
  });

  it('is off with enrichment.device', () => {
    const off = createEnricher({ ...settings, enrichment: { device: false } });
    const e = event(REDUCED_ANDROID, { mobile: '?1', model: '"Pixel 3 XL"' });
    assert.equal(off?.(e)?.device, undefined);
  });
});
