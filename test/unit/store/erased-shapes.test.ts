/**
 * After an erasure nothing of the person is stored again (issue #96; core/suppression/erased.ts,
 * docs/privacy.md "After an erasure"): each shape an erased person's data can arrive in — Segment's
 * identify with its traits kept in `event_data.traits`, an SDK's `context.traits`, the tag's call
 * with traits, custom fields repeating an e-mail, a phone or an id — goes through the store as a
 * pushed message, and the WHOLE row it makes is searched for every identifier of the person.
 */
import assert from 'node:assert/strict';
import { sha256 } from '../../../core/pii.ts';
import { plan } from '../../../core/plan.ts';
import { messageRows, storeConfig } from '../../../core/store/store.ts';
import { erasureHash } from '../../../core/suppression/erased.ts';
import type { Settings } from '../../../schemas/settings.ts';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const settings: Settings = { name: 'test', project: 'test-project', region: 'europe-west1', topics: [] };
const EMAIL = 'annabel.erased@example.com';
const PHONE = '+33 6 12 34 56 78';
const ERASED = {
  hashes: new Set([erasureHash(`email:${sha256(EMAIL)}`)]),
  mode: 'strip' as const,
};
const config = { ...storeConfig(settings, plan(settings)), suppression: () => ERASED };
/** What must not be anywhere in the row. */
const TRACES = [EMAIL, sha256(EMAIL), 'Annabel', 'Erasedova', '612345678', 'u-annabel', 'a-annabel'];
const person = { email: EMAIL, phone: PHONE, first_name: 'Annabel', last_name: 'Erasedova' };

const SHAPES: Readonly<Record<string, Record<string, unknown>>> = {
  'Segment identify (traits kept in event_data.traits)': {
    event_name: 'user_identified',
    user_id: 'u-annabel',
    anonymous_id: 'a-annabel',
    user: person,
    event_data: {
      traits: { email: EMAIL, phone: PHONE, firstName: 'Annabel', lastName: 'Erasedova', plan: 'gold' },
    },
  },
  'an SDK’s context.traits and userId in the data': {
    event_name: 'page_view',
    anonymous_id: 'a-annabel',
    user: { email: EMAIL },
    event_data: { context: { traits: { email: EMAIL, name: 'Annabel Erasedova' } }, userId: 'u-annabel' },
  },
  'the tag’s identify (traits as given, user split out)': {
    event_name: 'identify',
    user_id: 'u-annabel',
    anonymous_id: 'a-annabel',
    user: person,
    traits: { email: EMAIL, firstName: 'Annabel' },
    event_data: { email: EMAIL, firstName: 'Annabel', last_name: 'Erasedova', phone: PHONE },
  },
  'custom fields repeating the identifiers': {
    event_name: 'generate_lead',
    user_id: 'u-annabel',
    user: { email: EMAIL },
    page: { url: `https://shop.example/thanks?ref=${encodeURIComponent(EMAIL)}` },
    event_data: {
      lead_source: 'form',
      note: `call ${PHONE} or write to ${EMAIL}`,
      account_ref: 'account u-annabel',
      items: [{ contact: EMAIL, item_name: 'Brochure' }],
    },
  },
};

describe('store: after an erasure, no shape stores the person again (#96)', () => {
  for (const [name, event] of Object.entries(SHAPES))
    it(`${name}: the whole row holds no identifier or trait of the person`, () => {
      const out = messageRows(
        {
          messageId: '1',
          publishTime: '2026-06-01T12:00:00.000Z',
          attributes: {},
          data: Buffer.from(JSON.stringify({ event_id: `e-${name.length}`, ...event })),
          subscription: 'events-store',
          deliveryAttempt: 1,
        },
        config,
        NOW,
      );
      assert.notEqual(out.kind, 'suppressed');
      const row = JSON.stringify(out);
      for (const trace of TRACES) assert.ok(!row.includes(trace), `${trace} in ${row}`);
      // What happened stays.
      assert.ok(row.includes(String(event['event_name'])), row);
    });
});
