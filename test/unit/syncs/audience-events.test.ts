/**
 * Audiences from the warehouse (core/syncs/audience-events.ts; docs/syncs.md, "Audience events"):
 * what an `audience` sync destination publishes for a page of changes, checked against Segment's
 * public documentation of Engage audience events (segment.com/docs/engage/using-engage-data/,
 * "Audience events": an identify with `traits.<audience_key>`, or a track `Audience Entered` /
 * `Audience Exited` with `properties.audience_key` and `properties.<audience_key>`, both with
 * `context.personas`), then through segment-event.ts as the runtime sends it, where actions-core's
 * own `resolveAudienceMembership` must read the membership. Pure.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { decideOne } from '../../../core/decision/decision.ts';
import type { StoredEvent } from '../../../core/event.ts';
import { segmentEventOf } from '../../../core/platforms/segment-action/segment-event.ts';
import {
  segmentActionMaps,
  segmentActionTakes,
} from '../../../core/platforms/segment-action/subscription.ts';
import { audienceEvents, computationId, keptForExit } from '../../../core/syncs/audience-events.ts';
import { previewSyncPage } from '../../../core/syncs/sync-preview.ts';
import {
  type Change,
  destinationLabel,
  type SyncVersion,
  syncViolations,
} from '../../../core/syncs/syncs.ts';
import type { Destination } from '../../../schemas/settings.ts';
import type { SyncDestination, SyncSpec } from '../../../schemas/sync.ts';

/** actions-core's own reading of an event's audience membership (its CommonJS build, as the runtime loads it). */
const { resolveAudienceMembership } = createRequire(import.meta.url)('@segment/actions-core') as {
  resolveAudienceMembership: (event: unknown) => boolean | undefined;
};

const SLOT = '2026-11-27T06:00:00.000Z';
const spec = (
  audience: Extract<SyncDestination, { audience: unknown }>['audience'],
  over: Partial<SyncSpec> = {},
): SyncSpec => ({
  model: 'SELECT user_id, email, plan FROM crm.vip',
  primary_key: ['user_id'],
  mode: 'mirror',
  schedule: { manual: true },
  destination: { audience },
  ...over,
});
const sync = (s: SyncSpec): SyncVersion => ({ name: 'vip-members', version: '1', spec: s });

const entry: Change = {
  n: 1,
  op: 'upsert',
  key: { user_id: 'u-7' },
  data: {
    user_id: 'u-7',
    email: 'ada@example.com',
    first_name: 'Ada',
    plan: 'gold',
    consent: { analytics: 'granted', ads: 'granted' },
  },
};
const exit: Change = { n: 2, op: 'delete', key: { user_id: 'u-8' }, data: {} };

/** A published body as `store` keeps it: context fields at the top, the rest in event_data. */
function stored(body: Record<string, unknown>): StoredEvent {
  const context = ['event_name', 'event_id', 'event_time', 'user_id', 'anonymous_id', 'user', 'consent'];
  const event_data = Object.fromEntries(Object.entries(body).filter(([k]) => !context.includes(k)));
  const top = Object.fromEntries(Object.entries(body).filter(([k]) => context.includes(k)));
  return { ...top, event_data } as unknown as StoredEvent;
}

describe('syncs: audience events from the warehouse (Engage’s shape)', () => {
  it('an entry as an identify: traits.<key> true, context.personas, the person from the row', () => {
    const s = sync(spec({ key: 'vip_customers', space_id: 'spa_acme', destinations: ['braze'] }));
    const { events, failed } = audienceEvents(s, [entry], SLOT);
    assert.deepEqual(failed, []);
    assert.equal(events.length, 1);
    const e = events[0] as (typeof events)[number];
    assert.deepEqual(e.attributes, { origin: 'Sync/vip-members', hops: '1' });
    const segment = segmentEventOf(stored(e.body));
    assert.equal(segment.type, 'identify');
    assert.equal(segment['userId'], 'u-7');
    assert.equal(segment.timestamp, SLOT);
    assert.deepEqual(segment['traits'], {
      email: 'ada@example.com',
      firstName: 'Ada',
      userId: 'u-7',
      plan: 'gold',
      vip_customers: true,
    });
    // Only the destinations the audience is connected to get it (the decision layer reads the list).
    assert.deepEqual(e.body['audience_destinations'], ['braze']);
    const context = segment['context'] as Record<string, unknown>;
    assert.deepEqual(context['personas'], {
      computation_class: 'audience',
      computation_id: computationId('vip-members', { key: 'vip_customers', destinations: ['braze'] }),
      computation_key: 'vip_customers',
      namespace: 'spa_spa_acme',
      space_id: 'spa_acme',
    });
    assert.deepEqual(context['consent'], { categoryPreferences: { Advertising: true, Analytics: true } });
    // Segment's own code reads the membership from it.
    assert.equal(resolveAudienceMembership(segment as never), true);
  });

  it('an exit as a track Audience Exited: properties.audience_key, <key> false, the member from the key', () => {
    const s = sync(
      spec(
        {
          key: 'vip_customers',
          call: 'track',
          destinations: ['braze'],
          id: 'aud_42',
          external_audience_id: '9001',
          settings: { advertiserId: 'adv-1' },
        },
        { primary_key: ['user_id', 'email'] },
      ),
    );
    // What the state kept when the member entered: its key and consent (keptForExit).
    const entered8: Change = {
      n: 9,
      op: 'upsert',
      key: { user_id: 'u-8', email: 'bo@example.com' },
      data: { user_id: 'u-8', email: 'bo@example.com', consent: '{"analytics":"granted"}' },
    };
    const kept = keptForExit(s.spec, [entered8]).get(9);
    assert.equal(kept, '[{"user_id":"u-8","email":"bo@example.com"},{"analytics":"granted"}]');
    const leaving: Change = { ...exit, key: { key_sha256: 'ab' }, ...(kept ? { kept } : {}) };
    const { events } = audienceEvents(s, [entry, leaving], SLOT);
    const [entered, exited] = events.map((e) => segmentEventOf(stored(e.body)));
    assert.equal(entered?.['event'], 'Audience Entered');
    assert.deepEqual(entered?.['properties'], {
      plan: 'gold',
      audience_key: 'vip_customers',
      vip_customers: true,
    });
    assert.equal(exited?.type, 'track');
    assert.equal(exited?.['event'], 'Audience Exited');
    assert.equal(exited?.['userId'], 'u-8');
    assert.deepEqual((exited?.['context'] as Record<string, unknown> | undefined)?.['consent'], {
      categoryPreferences: { Analytics: true },
    });
    assert.deepEqual(exited?.['properties'], { audience_key: 'vip_customers', vip_customers: false });
    const context = exited?.['context'] as Record<string, unknown>;
    assert.deepEqual((context['traits'] as Record<string, unknown>)['email'], 'bo@example.com');
    assert.deepEqual(context['personas'], {
      computation_class: 'audience',
      computation_id: 'aud_42',
      computation_key: 'vip_customers',
      namespace: 'spa_eventbus',
      space_id: 'eventbus',
      external_audience_id: '9001',
      audience_settings: { advertiserId: 'adv-1' },
    });
    assert.equal(resolveAudienceMembership(entered as never), true);
    assert.equal(resolveAudienceMembership(exited as never), false);
  });

  it('ids: the same run slot gives the same id (a retried run folds); entry and exit, another slot differ', () => {
    const s = sync(spec({ key: 'vip_customers', destinations: ['braze'] }));
    const id = (c: Change, slot = SLOT) => audienceEvents(s, [c], slot).events[0]?.body['event_id'];
    assert.equal(id(entry), id(entry));
    assert.match(String(id(entry)), /^[0-9a-f]{64}$/);
    const kept = keptForExit(s.spec, [entry]).get(1);
    assert.notEqual(id(entry), id({ ...exit, key: entry.key, ...(kept ? { kept } : {}) }));
    // An exit the state keeps no member for fails rather than publishing an anonymous event.
    assert.equal(
      audienceEvents(s, [exit], SLOT).failed[0]?.reason,
      'the sync’s state keeps no member for this exit',
    );
    assert.notEqual(id(entry), id(entry, '2026-11-27T07:00:00.000Z'));
  });

  it('a row that names no member, or whose consent is not an object, fails with the reason', () => {
    const s = sync(spec({ key: 'vip_customers', destinations: ['braze'] }));
    const { events, failed } = audienceEvents(
      s,
      [
        { n: 1, op: 'upsert', key: { user_id: '' }, data: { plan: 'gold' } },
        { ...entry, n: 2, data: { user_id: 'u-9', consent: 'yes' } },
        { ...entry, n: 3, data: { email: 'only@example.com', consent: '{"analytics":"granted"}' } },
      ],
      SLOT,
    );
    assert.deepEqual(
      failed.map((f) => [f.change.n, f.reason.slice(0, 40)]),
      [
        [1, 'no column names the member: one of user_'],
        [2, 'the consent column must be an object of '],
      ],
    );
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]?.body['consent'], { analytics: 'granted' });
    assert.deepEqual(events[0]?.body['user'], { email: 'only@example.com' });
  });

  it('the spec is checked: the key, the call, a mirror key without the member, an internal topic', () => {
    const problems = (s: SyncSpec) => syncViolations(s, 'spec', []).map((v) => v.field);
    assert.deepEqual(problems(spec({ key: 'vip_customers', destinations: ['braze'] })), []);
    // The union names every form; the audience's own field says what is wrong with it.
    const about = (s: SyncSpec, field: string) =>
      syncViolations(s, 'spec', [])
        .filter((v) => v.field === field)
        .map((v) => v.description);
    assert.deepEqual(
      about(spec({ key: 'VIP customers', destinations: ['braze'] }), 'spec.destination.audience.key'),
      ['must match pattern "^[a-z][a-z0-9_]{0,99}$"'],
    );
    assert.deepEqual(
      about(
        spec({ key: 'vip', destinations: ['braze'], call: 'page' as never }),
        'spec.destination.audience.call',
      ),
      ['expected one of "identify", "track"'],
    );
    assert.deepEqual(
      about(
        spec({ key: 'vip', destinations: ['braze'], colour: 1 } as never),
        'spec.destination.audience.colour',
      ),
      ['is not a known field'],
    );
    assert.deepEqual(
      problems(spec({ key: 'vip', destinations: ['braze'] }, { primary_key: ['customer_id'] })),
      ['spec.primary_key'],
    );
    // Without exits, any key: every entry names the member by its row.
    assert.deepEqual(
      problems(
        spec({ key: 'vip', destinations: ['braze'] }, { primary_key: ['customer_id'], mode: 'upsert' }),
      ),
      [],
    );
    assert.deepEqual(problems(spec({ key: 'vip', destinations: ['braze'], topic: 'deliveries' })), [
      'spec.destination.audience.topic',
    ]);
    assert.equal(destinationLabel(spec({ key: 'vip', destinations: ['braze'] })), 'audience:vip');
  });

  it('the dry run shows the events it would publish, and the rows it would not', () => {
    const s = sync(spec({ key: 'vip_customers', destinations: ['braze'] }));
    const preview = previewSyncPage({
      sync: s,
      connections: [],
      runKey: 'Sync/vip-members@x',
      slot: SLOT,
      planned: 2,
      changes: [entry, { n: 2, op: 'upsert', key: { user_id: null }, data: {} }],
    });
    assert.equal(preview.requests.length, 1);
    assert.match(preview.requests[0]?.title ?? '', /^publish on events /);
    assert.equal(JSON.parse(preview.requests[0]?.body ?? '{}').personas.computation_key, 'vip_customers');
    assert.equal(preview.notSent.length, 1);
  });

  it('an audience destination’s actions take the events by their own defaults (store’s decision)', () => {
    const s = sync(spec({ key: 'vip_customers', call: 'track', destinations: ['braze'] }));
    const [entered] = audienceEvents(s, [entry], SLOT).events;
    const event = stored(entered?.body ?? {});
    // Braze Cohorts' syncAudiences: `event = "Audience Entered" or event = "Audience Exited"`.
    const braze = {
      id: 'braze',
      type: 'segment_action',
      destination: 'braze-cohorts',
      actions: [{ action: 'syncAudiences' }],
    } as Destination;
    assert.equal(segmentActionMaps(braze, 'audience_entered'), true);
    assert.equal(segmentActionTakes(braze, event), true);
    const decided = (d: Destination) =>
      decideOne(d, event, { isKnownEvent: () => false, honorGpc: true } as never);
    assert.equal(decided(braze).action, 'send');
    // Another destination that takes track calls, not connected to the audience: skipped.
    const other = decided({ ...braze, id: 'sendgrid-lists' });
    assert.equal(other.action, 'skip');
    assert.match(
      other.action === 'skip' ? other.reason : '',
      /vip_customers, whose audience is not connected/,
    );
    // A custom event of the user's own still needs a `when` naming it.
    assert.equal(segmentActionMaps(braze, 'quote_requested'), false);
  });

  it('a withdrawn purpose: an exit to the destinations that had the member, the entry to the rest', () => {
    const s = sync(spec({ key: 'vip_customers', call: 'track', destinations: ['ads', 'crm', 'late'] }));
    // The member entered with analytics and ads granted; the model now says ads denied.
    const kept = keptForExit(s.spec, [entry]).get(1);
    const changed: Change = {
      ...entry,
      ...(kept ? { kept } : {}),
      data: { ...entry.data, consent: { analytics: 'granted', ads: 'denied' } },
    };
    const { events, failed } = audienceEvents(s, [changed], SLOT);
    assert.deepEqual(failed, []);
    assert.deepEqual(
      events.map((e) => e.body['event_name']),
      ['audience_exited', 'audience_entered'],
    );
    const [exited, entered] = events.map((e) => stored(e.body));
    assert.deepEqual(exited?.consent, { analytics: 'granted', ads: 'denied' });
    assert.deepEqual(exited?.event_data['audience_entry_consent'], { analytics: 'granted', ads: 'granted' });
    assert.equal(exited?.user_id, 'u-7');
    assert.notEqual(
      exited?.event_id,
      audienceEvents(s, [{ ...exit, key: entry.key, ...(kept ? { kept } : {}) }], SLOT).events[0]?.body[
        'event_id'
      ],
    );
    // Never the platform's: the entry consent stays out of what a catalogue destination is sent.
    assert.equal(
      JSON.stringify(segmentEventOf(exited as StoredEvent)).includes('audience_entry_consent'),
      false,
    );
    const braze = (id: string, consent: Destination['consent']) =>
      ({
        id,
        type: 'segment_action',
        destination: 'braze-cohorts',
        actions: [{ action: 'syncAudiences' }],
        consent,
      }) as Destination;
    const action = (d: Destination, e: StoredEvent | undefined) =>
      decideOne(d, e as StoredEvent, { isKnownEvent: () => false, honorGpc: true } as never).action;
    // Needs ads: had the member, loses it → the exit goes, the entry is skipped.
    assert.deepEqual(
      [action(braze('ads', ['ads']), exited), action(braze('ads', ['ads']), entered)],
      ['send', 'skip'],
    );
    // Needs analytics only: keeps the member → the exit is skipped, the entry (a no-op there) goes.
    assert.deepEqual(
      [action(braze('crm', ['analytics']), exited), action(braze('crm', ['analytics']), entered)],
      ['skip', 'send'],
    );
    // Needs a purpose never granted: never had the member → neither goes.
    assert.deepEqual(
      [action(braze('late', ['ad_user_data']), exited), action(braze('late', ['ad_user_data']), entered)],
      ['skip', 'skip'],
    );
    // No purpose withdrawn (one granted more): only the entry.
    const more: Change = {
      ...changed,
      data: { ...entry.data, consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' } },
    };
    assert.deepEqual(
      audienceEvents(s, [more], SLOT).events.map((e) => e.body['event_name']),
      ['audience_entered'],
    );
  });
});
