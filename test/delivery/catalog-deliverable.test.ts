/**
 * Verified means deliverable (issue #95; docs/catalog-destinations.md, "Deliverable"): every
 * destination the conformance run verified (docs/data/segment-conformance.json) gets an ordinary
 * event — a purchase, else an identify, else a page view — through the driver forward-catalog
 * carries (adapters/segment-actions/driver.ts: batches included), set up as a user would set it
 * up without writing a mapping: its default presets (or, without presets, its verified actions
 * under their default subscriptions), each required setting given a stand-in value, an OAuth
 * access token, Google Ads' developer token. Every request goes to a capturing stand-in on
 * loopback through `base_url`, which answers 200 `{}`.
 *
 * The destinations that deliver are listed in test/fixtures/catalog/deliverable.json (a reviewed
 * list, as the conformance run's not-runnable reasons are): each must still deliver. The test
 * prints how many deliver of how many verified; EVENTBUS_UPDATE_DELIVERABLE=1 writes the list anew.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { segmentActionDriver } from '../../adapters/segment-actions/driver.ts';
import type { StoredEvent } from '../../core/event.ts';
import type { CatalogSetting } from '../../core/platforms/segment-action/catalog.ts';
import { OAUTH_ROLES } from '../../core/platforms/segment-action/oauth.ts';
import type { Destination } from '../../schemas/settings.ts';
import { standIn } from '../support/catalog-delivery.ts';
import { REPO } from '../support/local-start.ts';

interface Verified {
  readonly slug: string;
  readonly actions: readonly {
    readonly action: string;
    readonly runnable: number;
    readonly passing: number;
  }[];
}
interface Entry {
  readonly slug: string;
  readonly auth: string;
  readonly authFields?: readonly CatalogSetting[];
  readonly presets?: readonly unknown[];
}

const read = (path: string): unknown => JSON.parse(readFileSync(join(REPO, path), 'utf8'));
const VERIFIED = (read('docs/data/segment-conformance.json') as { destinations: Verified[] }).destinations
  .map((d) => ({
    slug: d.slug,
    actions: d.actions.filter((a) => a.runnable > 0 && a.runnable === a.passing),
  }))
  .filter((d) => d.actions.length > 0);
const CATALOG = new Map(
  (read('core/platforms/segment-action/catalog.json') as { destinations: Entry[] }).destinations.map((e) => [
    e.slug,
    e,
  ]),
);
const DELIVERABLE_FILE = 'test/fixtures/catalog/deliverable.json';
const DELIVERABLE = read(DELIVERABLE_FILE) as { destinations: string[] };

const NOW = new Date('2026-11-27T08:00:00.000Z');
const person = {
  user_id: 'u-1',
  anonymous_id: 'a-1',
  user: { email: 'jane@example.com', phone: '+14155552671', first_name: 'Jane', last_name: 'Doe' },
  consent: { analytics: 'granted', marketing: 'granted' },
};
/** The ordinary events, in the order they are tried. */
const EVENTS: readonly StoredEvent[] = [
  {
    event_name: 'purchase',
    event_id: 'd-purchase',
    event_time: NOW.toISOString(),
    ...person,
    event_data: { value: 10, currency: 'USD', transaction_id: 'o-1' },
  },
  {
    event_name: 'user_identified',
    event_id: 'd-identify',
    event_time: NOW.toISOString(),
    ...person,
    event_data: {},
  },
  { event_name: 'page_view', event_id: 'd-page', event_time: NOW.toISOString(), ...person, event_data: {} },
] as StoredEvent[];

/** A stand-in value for a required setting: its default, its first choice, else one of its type. */
function standInValue(f: CatalogSetting): string | number | boolean {
  if (f.default !== undefined) return f.default;
  const first = f.choices?.[0]?.value;
  if (first !== undefined) return first;
  if (f.type === 'number' || f.type === 'integer') return 1;
  if (f.type === 'boolean') return true;
  return /url|uri|endpoint/i.test(f.key) ? 'https://standin.example.com' : `standin-${f.key}`;
}

/** The destination as a user sets it up without a mapping, and the values of its secrets. */
function setUp(
  v: (typeof VERIFIED)[number],
  base: string,
): { destination: Destination; secrets: Record<string, string> } {
  const entry = CATALOG.get(v.slug);
  const config: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  for (const f of entry?.authFields ?? []) {
    if (!f.required) continue;
    if (f.type === 'password' || f.secret) secrets[f.key] = String(standInValue(f));
    else config[f.key] = standInValue(f);
  }
  if (entry?.auth === 'oauth2' || entry?.auth === 'oauth-managed')
    secrets[OAUTH_ROLES.access_token] = 'standin-token';
  if (v.slug === 'google-enhanced-conversions') secrets['developer_token'] = 'standin-developer-token';
  const presets = (entry?.presets ?? []).length > 0;
  return {
    destination: {
      id: v.slug,
      type: 'segment_action',
      destination: v.slug,
      base_url: base,
      config,
      ...(presets ? {} : { actions: v.actions.map((a) => ({ action: a.action })) }),
    } as Destination,
    secrets,
  };
}

describe('segment_action: every verified destination delivers an ordinary event (its default presets)', () => {
  let stand: Awaited<ReturnType<typeof standIn>>;
  before(async () => {
    stand = await standIn();
  });
  after(() => stand.server.close());

  it('delivers to each destination of the reviewed list, and says how many of the verified deliver', async () => {
    const driver = segmentActionDriver(globalThis.fetch);
    const perform = driver.perform as NonNullable<typeof driver.perform>;
    const verdicts = await Promise.all(
      VERIFIED.map(async (v) => {
        const { destination, secrets } = setUp(v, stand.base);
        const said: string[] = [];
        for (const event of EVENTS) {
          const { outcome } = await perform(event, { destination, secrets, now: NOW });
          if (outcome.status === 'delivered') return { slug: v.slug, delivered: true, said };
          said.push(`${event.event_name}: ${outcome.reason}`);
        }
        return { slug: v.slug, delivered: false, said };
      }),
    );
    const delivered = verdicts.filter((v) => v.delivered).map((v) => v.slug);
    console.log(
      `      ${delivered.length} of ${VERIFIED.length} verified destinations deliver an ordinary event`,
    );
    // An update of the pinned package (or a fix that makes more deliver) rewrites the list, then reviewed.
    if (process.env['EVENTBUS_UPDATE_DELIVERABLE'] === '1')
      writeFileSync(
        join(REPO, DELIVERABLE_FILE),
        `${JSON.stringify({ destinations: delivered }, null, 2)}\n`,
      );
    const lost = DELIVERABLE.destinations.filter((slug) => !delivered.includes(slug));
    assert.deepEqual(
      lost.map(
        (slug) => `${slug}: ${verdicts.find((v) => v.slug === slug)?.said.join(' | ') ?? 'not verified'}`,
      ),
      [],
    );
    assert.ok(stand.captured.length >= delivered.length, 'each delivery reached the stand-in');
  });
});
