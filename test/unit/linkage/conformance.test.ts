/**
 * Runs the conformance table (conformance-cases.ts) through each platform's driver exactly as
 * forward does, and compares the request body with what the platforms document.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { StoredEvent } from '../../../core/event.ts';
import type { Driver, Prepared } from '../../../core/platforms/driver.ts';
import { ga4MpDriver } from '../../../core/platforms/ga4/index.ts';
import { googleAdsDriver } from '../../../core/platforms/google-ads/index.ts';
import { linkedinDriver } from '../../../core/platforms/linkedin/index.ts';
import { metaCapiDriver } from '../../../core/platforms/meta/index.ts';
import { microsoftDriver } from '../../../core/platforms/microsoft/index.ts';
import { redditDriver } from '../../../core/platforms/reddit/index.ts';
import { tiktokEventsDriver } from '../../../core/platforms/tiktok/index.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { CASES, type ConformanceCase, type Expected, type PlatformExpectation } from './conformance-cases.ts';

const NOW = new Date('2024-11-16T08:00:00.000Z');
const SECRETS = { access_token: 'token', api_secret: 'secret', credentials: '{}' };

const BASE: Record<string, unknown> = {
  event_time: '2024-11-16T07:17:34.567Z',
  received_at: '2024-11-16T07:17:35.000Z',
  anonymous_id: '111.222',
  page: { url: 'https://shop.example/p/1' },
  device: { ip: '203.0.113.7', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)' },
  consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' },
};
const GROUPS = new Set(['user', 'page', 'device', 'campaign', 'consent']);

/** The base event with the case's context merged group by group (an undefined value removes it). */
function eventOf(c: ConformanceCase): StoredEvent {
  const out: Record<string, unknown> = { ...BASE };
  for (const [k, v] of Object.entries(c.context ?? {})) {
    if (GROUPS.has(k) && v !== undefined) {
      const merged = { ...(out[k] as object | undefined), ...(v as object) };
      out[k] = Object.fromEntries(Object.entries(merged).filter(([, x]) => x !== undefined));
    } else if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return { ...out, event_name: c.event, event_id: `evt-${c.event}`, event_data: c.data ?? {} } as StoredEvent;
}

const firstOfData = (b: Record<string, unknown>) =>
  (b['data'] as Record<string, unknown>[])[0] as Record<string, unknown>;
const destination = (type: Destination['type'], config: Record<string, string>): Destination => ({
  id: type,
  type,
  config,
  secrets: { access_token: 't', api_secret: 's' },
});

const PLATFORMS: readonly {
  key: 'meta' | 'ga4' | 'tiktok' | 'googleAds' | 'linkedin' | 'microsoft' | 'reddit';
  driver: Driver;
  destination: Destination;
  /** The platform event inside the request body (GA4: the whole body, its events under events[]). */
  pick: (body: Record<string, unknown>) => Record<string, unknown>;
}[] = [
  {
    key: 'meta',
    driver: metaCapiDriver,
    destination: destination('meta_capi', { pixel_id: '1' }),
    pick: firstOfData,
  },
  {
    key: 'ga4',
    driver: ga4MpDriver,
    destination: destination('ga4_mp', { measurement_id: 'G-1' }),
    pick: (b) => b,
  },
  {
    key: 'tiktok',
    driver: tiktokEventsDriver,
    destination: destination('tiktok_events', { pixel_code: 'C1' }),
    pick: firstOfData,
  },
  {
    key: 'googleAds',
    driver: googleAdsDriver,
    // Each conversion routed to a conversion action id, as a destination's settings do.
    destination: {
      ...destination('google_ads', { operating_account_id: '1234567890' }),
      secrets: { credentials: 'c' },
      mappings: { purchase: { event: '111' }, lead: { event: '222' } },
    },
    pick: (b) => ({ ...(b['events'] as Record<string, unknown>[])[0], encoding: b['encoding'] }),
  },
  {
    key: 'linkedin',
    driver: linkedinDriver,
    // Each conversion routed to a conversion rule id, as a destination's settings do.
    destination: {
      ...destination('linkedin_capi', {}),
      mappings: { purchase: { event: '111' }, lead: { event: '222' } },
    },
    pick: (b) => b,
  },
  {
    key: 'microsoft',
    driver: microsoftDriver,
    destination: destination('microsoft_uet', { tag_id: '1' }),
    pick: firstOfData,
  },
  {
    key: 'reddit',
    driver: redditDriver,
    destination: destination('reddit_capi', { pixel_id: 'a2_p' }),
    pick: (b) =>
      ((b['data'] as { events: Record<string, unknown>[] }).events[0] ?? {}) as Record<string, unknown>,
  },
];

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** Reads `a.b[0].c` from an object. */
function at(root: unknown, path: string): unknown {
  let current = root;
  for (const part of path.split('.')) {
    const m = /^([^[]+)((?:\[\d+\])*)$/.exec(part);
    if (!m) return undefined;
    current = (current as Record<string, unknown> | undefined)?.[m[1] as string];
    for (const idx of (m[2] ?? '').match(/\d+/g) ?? [])
      current = (current as unknown[] | undefined)?.[Number(idx)];
  }
  return current;
}

/** The value a field should hold (digests computed here from the documented normalised text). */
function resolve(expected: Expected): unknown {
  if (typeof expected !== 'object' || Array.isArray(expected) || expected === null) return expected;
  if ('sha256' in expected) return sha(expected.sha256);
  if ('sha256List' in expected) return expected.sha256List.map(sha);
  return undefined;
}

function checkField(actual: unknown, expected: Expected, where: string): void {
  if (typeof expected === 'object' && expected !== null && 'match' in expected)
    assert.match(String(actual), new RegExp(expected.match), where);
  else assert.deepEqual(actual, resolve(expected), where);
}

function checkPlatform(
  prepared: Prepared,
  expectation: PlatformExpectation,
  pick: (b: Record<string, unknown>) => Record<string, unknown>,
  name: string,
): void {
  if ('refused' in expectation) {
    assert.equal(prepared.ok, false, `${name}: should be refused`);
    if (!prepared.ok) assert.ok(prepared.reason.includes(expectation.refused), `${name}: ${prepared.reason}`);
    return;
  }
  assert.ok(prepared.ok, `${name}: refused: ${prepared.ok ? '' : prepared.reason}`);
  if (!prepared.ok) return;
  const sent = pick(JSON.parse(prepared.request.body) as Record<string, unknown>);
  for (const [path, expected] of Object.entries(expectation.fields))
    checkField(at(sent, path), expected, `${name}: ${path}`);
  if (expectation.dropped)
    assert.ok(prepared.dropped?.includes(expectation.dropped), `${name}: dropped says ${prepared.dropped}`);
}

describe('linkage conformance: the platforms’ documented fields for clean and messy events', () => {
  it('has at least 40 input events', () => {
    assert.ok(CASES.length >= 40, `${CASES.length} cases`);
  });
  for (const c of CASES) {
    it(c.name, () => {
      const event = eventOf(c);
      let checked = 0;
      for (const p of PLATFORMS) {
        const expectation = c[p.key];
        if (expectation === undefined) continue;
        const prepared = p.driver.prepare(event, { destination: p.destination, secrets: SECRETS, now: NOW });
        checkPlatform(prepared, expectation, p.pick, p.key);
        checked++;
      }
      assert.ok(checked > 0, 'a case checks at least one platform');
    });
  }
});
