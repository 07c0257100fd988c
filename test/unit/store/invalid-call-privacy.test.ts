/**
 * A refused call (`{"invalid_call": …}`: the tag's form, the Segment paths) in invalid_events
 * under the warehouse's PII policy and the erased persons' list (core/store/invalid-call.ts,
 * core/store/store.ts; docs/privacy.md): the call inside is judged as the event it would have
 * been, its traits and Segment's names where the policy's `user.` paths name them.
 */
import assert from 'node:assert/strict';
import { sha256 } from '../../../core/pii.ts';
import { plan } from '../../../core/plan.ts';
import { messageRows, type StoreConfig, storeConfig } from '../../../core/store/store.ts';
import { erasureHash, type Suppression } from '../../../core/suppression/erased.ts';
import type { Settings } from '../../../schemas/settings.ts';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const base: Settings = { name: 'test', project: 'test-project', region: 'europe-west1', topics: [] };
const withPii = (pii?: Settings['pii']): StoreConfig => {
  const s: Settings = pii ? { ...base, pii } : base;
  return storeConfig(s, plan(s));
};

function stored(value: unknown, config: StoreConfig) {
  const out = messageRows(
    {
      messageId: '7',
      publishTime: '2026-06-01T12:00:00.000Z',
      attributes: { invalid: 'content_name: is required' },
      data: Buffer.from(JSON.stringify(value)),
      subscription: 'events-store',
      deliveryAttempt: 1,
    },
    config,
    NOW,
  );
  return out;
}

const payloadOf = (out: ReturnType<typeof stored>) => {
  assert.equal(out.kind, 'invalid');
  return JSON.parse(String((out as { row: { json: Record<string, unknown> } }).row.json['payload']));
};

const ANN = 'ann@example.com';
const tagCall: Record<string, unknown> = {
  event_name: 'view_content',
  event_id: 'e2',
  anonymous_id: 'anon-1',
  user: { email: ANN },
  traits: { email: ANN, firstName: 'Ann', address: { postalCode: '10115' }, plan: 'gold' },
  search_term: 'Ann Smith',
};

describe('store: a refused call under the PII policy and the erased list', () => {
  it('hashes and drops the policy’s fields inside the call, also where its traits keep them', () => {
    const config = withPii({
      hash_in_warehouse: ['user.email', 'user.first_name'],
      drop: ['user.postal_code', 'event_data.search_term'],
    });
    const kept = payloadOf(stored({ invalid_call: tagCall }, config));
    const call = kept.invalid_call;
    assert.equal(call.user.email, sha256(ANN));
    assert.equal(call.traits.email, sha256(ANN));
    assert.equal(call.traits.firstName, sha256('ann'));
    assert.deepEqual(call.traits.address, {});
    assert.equal(call.traits.plan, 'gold', 'a trait the policy does not name stays');
    assert.equal(call.search_term, undefined, 'an event_data path at the top level of the call');
    assert.ok(!JSON.stringify(kept).includes(ANN));
  });

  it('reaches a Segment call’s names: traits, context.traits, userId, properties', () => {
    const config = withPii({ hash_in_warehouse: ['user.email', 'user_id'], drop: ['event_data.phone'] });
    const segment = {
      type: 'track',
      event: 'Order Completed',
      userId: 'u-42',
      context: { traits: { email: ANN }, ip: '203.0.113.9' },
      properties: { phone: '+4915112345678', total: 3 },
    };
    const call = payloadOf(stored({ invalid_call: segment }, config)).invalid_call;
    assert.equal(call.userId, sha256('u-42'));
    assert.equal(call.context.traits.email, sha256(ANN));
    assert.deepEqual(call.properties, { total: 3 });
  });

  it('strips an erased person’s refused call of what identifies them, or drops it', () => {
    const hashes = new Set([erasureHash(`email:${sha256(ANN)}`)]);
    const strip: Suppression = { hashes, mode: 'strip' };
    // Identified by a trait alone: the call's own user group is not there.
    const { user: _u, ...byTrait } = tagCall;
    const identify = { ...byTrait, event_name: 'identify', event_data: { email: ANN, plan: 'gold' } };
    for (const call of [byTrait, identify]) {
      const out = stored({ invalid_call: call }, { ...withPii(), suppression: () => strip });
      const text = JSON.stringify(out);
      assert.ok(!text.includes(ANN) && !text.includes('anon-1') && !text.includes('"Ann"'), text);
      assert.equal(payloadOf(out).invalid_call.event_id, 'e2', 'what happened stays');
      assert.deepEqual(payloadOf(out).invalid_call.event_data, call['event_data'] && { plan: 'gold' });
    }
    const segment = {
      type: 'identify',
      userId: 'u-42',
      traits: { email: ANN },
      context: { ip: '203.0.113.9' },
    };
    const out = stored({ invalid_call: segment }, { ...withPii(), suppression: () => strip });
    assert.ok(!JSON.stringify(out).includes('u-42') && !JSON.stringify(out).includes('203.0.113.9'));
    const drop = stored(
      { invalid_call: byTrait },
      { ...withPii(), suppression: () => ({ hashes, mode: 'drop' }) },
    );
    assert.equal(drop.kind, 'suppressed');
    // Someone else's refused call is kept as sent.
    const other = stored(
      { invalid_call: { ...byTrait, traits: { email: 'bob@example.com' } } },
      { ...withPii(), suppression: () => strip },
    );
    assert.ok(JSON.stringify(other).includes('bob@example.com'));
  });
});
