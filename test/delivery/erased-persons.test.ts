/**
 * After an erasure (issue #61, docs/privacy.md "After an erasure"): the erased list as store and
 * forward hold it (adapters/suppression-list.ts) and what it does to an event (core/privacy/
 * suppression.ts, core/delivery/forward.ts): a message older than the erasure, redelivered or
 * re-driven, reaches a destination without the person's identifiers, or not at all.
 */

import assert from 'node:assert/strict';
import { createSuppressionList } from '../../adapters/suppression-list.ts';
import { type ForwardDeps, forwardPush } from '../../core/delivery/forward.ts';
import { decodePush, deliveryMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import { sha256 } from '../../core/pii.ts';
import type { OutboundRequest } from '../../core/platforms/driver.ts';
import { driverFor } from '../../core/platforms/drivers.ts';
import {
  erasureHash,
  eventIdentifiers,
  type Suppression,
  stripIdentifiers,
  suppressionVerdict,
} from '../../core/suppression/erased.ts';

const ann = { email: 'Ann@Example.com', phone: '+33 6 12 34 56 78' };
const list = (mode: Suppression['mode'], ...ids: string[]): Suppression => ({
  hashes: new Set(ids.map(erasureHash)),
  mode,
});
const annEmail = `email:${sha256('ann@example.com')}`;

describe('erased persons: the verdict and the stripped event', () => {
  it('matches any of the event’s identifiers by its second-order hash, e-mails and phones normalised or already hashed', () => {
    const erased = list('strip', annEmail, `phone:${sha256('33612345678')}`, 'user_id:u-1');
    assert.equal(
      suppressionVerdict({ event_name: 'x', user: { email: ' ANN@example.com ' } }, erased),
      'strip',
    );
    assert.equal(
      suppressionVerdict({ event_name: 'x', user: { email: sha256('ann@example.com') } }, erased),
      'strip',
    );
    assert.equal(suppressionVerdict({ event_name: 'x', user: { phone: ann.phone } }, erased), 'strip');
    assert.equal(suppressionVerdict({ event_name: 'x', user_id: 'u-1' }, erased), 'strip');
    assert.equal(suppressionVerdict({ event_name: 'x', user_id: 'u-10' }, erased), 'keep');
    assert.equal(
      suppressionVerdict({ event_name: 'x', user_id: 'u-1' }, list('drop', 'user_id:u-1')),
      'drop',
    );
    assert.equal(suppressionVerdict({ event_name: 'x', user_id: 'u-1' }, undefined), 'keep');
    assert.deepEqual(eventIdentifiers({ anonymous_id: '', user_id: 'u' }), ['user_id:u']);
  });

  it('strips ids, user, device, click ids and personal URL values; keeps what happened', () => {
    const stripped = stripIdentifiers({
      event_name: 'purchase',
      value: 12,
      currency: 'EUR',
      user_id: 'u-1',
      anonymous_id: 'a-1',
      session_id: 's',
      user: { email: ann.email },
      device: { ip: '203.0.113.7', user_agent: 'UA' },
      campaign: { utm_source: 'news', gclid: 'G', fbp: 'fb.1' },
      page: { url: 'https://shop.example/thanks?email=ann%40example.com&ref=x' },
    });
    assert.deepEqual(Object.keys(stripped).sort(), ['campaign', 'currency', 'event_name', 'page', 'value']);
    assert.deepEqual(stripped.campaign, { utm_source: 'news' });
    assert.ok(!JSON.stringify(stripped).toLowerCase().includes('ann'), JSON.stringify(stripped));
  });
});

describe('erased persons: the list a function holds', () => {
  function fakeObject() {
    const state = { generation: undefined as string | undefined, body: '', reads: 0, fail: false };
    return {
      state,
      object: async () => ({
        generation: async () => {
          state.reads += 1;
          if (state.fail) throw new Error('storage down');
          return state.generation;
        },
        download: async () => Buffer.from(state.body),
      }),
    };
  }

  it('reads before the first event, answers without a promise while fresh, and makes an event wait once it is old', async () => {
    const { state, object } = fakeObject();
    let now = 0;
    const erased = createSuppressionList({ object, mode: 'strip', refreshMs: 30_000, now: () => now });
    await erased.ready();
    assert.equal(erased.current()?.hashes.size, 0, 'no object: nobody is erased');
    now = 29_999;
    assert.equal(erased.ready(), undefined, 'fresh: no promise on the hot path');
    state.generation = '7';
    state.body = JSON.stringify({ hashes: [erasureHash(annEmail)] });
    now = 30_000;
    const waiting = erased.ready();
    assert.ok(waiting instanceof Promise, 'old: the event waits for the check');
    await waiting;
    assert.ok(erased.current()?.hashes.has(erasureHash(annEmail)));
    now = 70_000;
    state.fail = true;
    const logged: string[] = [];
    const failing = createSuppressionList({
      object,
      mode: 'drop',
      refreshMs: 1,
      now: () => now,
      log: (m) => logged.push(m),
    });
    await assert.rejects(
      async () => failing.ready(),
      /storage down/,
      'never read: the function does not start',
    );
    await erased.ready();
    assert.ok(erased.current()?.hashes.has(erasureHash(annEmail)), 'a failed check keeps the list held');
  });
});

describe('erased persons: forward', () => {
  const hook = {
    id: 'hook',
    type: 'webhook' as const,
    base_url: 'http://127.0.0.1:9/',
    config: { path: '/in' },
    secrets: { signing_key: 'HOOK_KEY' },
  };
  const event: StoredEvent = {
    event_name: 'sign_up',
    event_id: 'evt-ann',
    event_time: '2026-03-01T11:59:00.000Z',
    event_data: {},
    user_id: 'u-1',
    user: { email: ann.email },
  };
  function push() {
    const m = deliveryMessage(event, 'hook');
    const decoded = decodePush({
      message: { data: Buffer.from(m.data).toString('base64'), attributes: m.attributes, messageId: 'm-1' },
      subscription: 'projects/p/subscriptions/deliveries-hook',
      deliveryAttempt: 1,
    });
    assert.ok(decoded.ok);
    return decoded.push;
  }
  function deps(suppression: Suppression) {
    const sent: OutboundRequest[] = [];
    const d: ForwardDeps = {
      destinations: [hook],
      driverFor,
      getSecret: async () => 'k',
      send: async (request) => {
        sent.push(request);
        return { kind: 'response', status: 204, headers: {}, body: '' };
      },
      now: () => new Date('2026-03-01T12:00:00.000Z'),
      suppression: () => suppression,
    };
    return { d, sent };
  }

  it('sends a message older than the erasure without the person’s identifiers (strip)', async () => {
    const { d, sent } = deps(list('strip', annEmail));
    const result = await forwardPush(push(), d);
    assert.equal(result.entries[0]?.row.status, 'delivered');
    const body = String(sent[0]?.body);
    assert.ok(body.includes('evt-ann') && !body.includes('Ann@') && !body.includes('u-1'), body);
  });

  it('does not send it at all (drop), and says why in the ledger', async () => {
    const { d, sent } = deps(list('drop', annEmail));
    const result = await forwardPush(push(), d);
    assert.equal(sent.length, 0);
    assert.equal(result.ack, true);
    assert.equal(result.entries[0]?.row.status, 'rejected');
    assert.match(String(result.entries[0]?.row.reason), /erased/);
  });
});
