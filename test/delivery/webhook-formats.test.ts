/**
 * The webhook destination's formats (core/platforms/webhook/formats.ts), checked the way a
 * receiver checks them: with the official libraries, unchanged (`standardwebhooks`, `svix`'s
 * verifier, the `cloudevents` SDK's HTTP parser). A wrong key, an old timestamp and a changed
 * body each fail there; a destination without `format` still sends our `v2`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { HTTP } from 'cloudevents';
import type { OutboundRequest } from '../../core/platforms/driver.ts';
import { WEBHOOK_HEADERS } from '../../core/platforms/webhook/driver.ts';
import { cloudEventType, rotationState, webhookSigning } from '../../core/platforms/webhook/formats.ts';
import { webhookDriver } from '../../core/platforms/webhook/index.ts';
import { webhookFormatWarnings } from '../../core/platforms/webhook/warnings.ts';
import type { Destination } from '../../schemas/settings.ts';
import { verdicts } from '../support/webhook-verdicts.ts';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const KEY = secret();
const OLD_KEY = secret();

const event = {
  event_id: 'e-1',
  event_name: 'Order Completed',
  event_time: '2026-11-27T04:00:00.000Z',
  payload_digest: 'a'.repeat(64),
  user_id: 'u-1',
  event_data: { value: 12 },
};

function hook(
  config: Destination['config'],
  secrets: Destination['secrets'] = { signing_key: 'k' },
): Destination {
  return {
    id: 'crm',
    type: 'webhook',
    base_url: 'https://crm.example',
    config: { path: '/in', ...config },
    secrets,
  };
}

function send(
  destination: Destination,
  now = new Date(),
  secrets: Record<string, string> = { signing_key: KEY },
): OutboundRequest {
  const p = webhookDriver.prepare(event, { destination, secrets, now, environment: 'prod' });
  assert.ok(p.ok, p.ok ? '' : p.reason);
  return p.request;
}

describe('webhook formats, verified by the receivers’ libraries', () => {
  it('standard-webhooks: both libraries verify; a wrong key, an old timestamp, a changed body fail', () => {
    const r = send(hook({ format: 'standard-webhooks' }));
    assert.deepEqual(verdicts(r, KEY), { standard: 'ok', svix: 'ok' });
    assert.equal(r.headers['content-type'], 'application/json');
    assert.match(r.headers['webhook-signature'] ?? '', /^v1,[A-Za-z0-9+/]+=*$/);
    assert.equal(r.headers[WEBHOOK_HEADERS.signature], undefined);
    const wrong = verdicts(r, secret());
    assert.notEqual(wrong.standard, 'ok');
    assert.notEqual(wrong.svix, 'ok');
    const old = verdicts(
      send(hook({ format: 'standard-webhooks' }), new Date(Date.now() - 10 * 60_000)),
      KEY,
    );
    assert.match(old.standard, /too old/i);
    assert.match(old.svix, /too old/i);
    const changed = verdicts({ ...r, body: r.body.replace('"value":12', '"value":13') }, KEY);
    assert.notEqual(changed.standard, 'ok');
    assert.notEqual(changed.svix, 'ok');
  });

  it('webhook-id is the delivery id on every attempt; the timestamp and signature are new', () => {
    const d = hook({ format: 'standard-webhooks' });
    const first = send(d, new Date(Date.now() - 60_000));
    const retry = send(d);
    assert.equal(first.headers['webhook-id'], retry.headers['webhook-id']);
    assert.match(first.headers['webhook-id'] ?? '', /^[0-9a-f]{64}$/);
    assert.notEqual(first.headers['webhook-timestamp'], retry.headers['webhook-timestamp']);
    assert.notEqual(first.headers['webhook-signature'], retry.headers['webhook-signature']);
    assert.deepEqual(verdicts(first, KEY), { standard: 'ok', svix: 'ok' });
    assert.deepEqual(verdicts(retry, KEY), { standard: 'ok', svix: 'ok' });
    // Another destination, another id: the id names the event and the destination.
    assert.notEqual(send({ ...d, id: 'other' }).headers['webhook-id'], retry.headers['webhook-id']);
  });

  it('a key rotation: both keys verify during the overlap, only the new one after', () => {
    const now = new Date();
    const until = new Date(now.getTime() + 3_600_000).toISOString();
    const d = hook(
      { format: 'standard-webhooks', previous_key_until: until },
      { signing_key: 'hook-key-2', signing_key_previous: 'hook-key-1' },
    );
    const values = { signing_key: KEY, signing_key_previous: OLD_KEY };
    const during = send(d, now, values);
    assert.equal(during.headers['webhook-signature']?.split(' ').length, 2);
    assert.deepEqual(verdicts(during, KEY), { standard: 'ok', svix: 'ok' });
    assert.deepEqual(verdicts(during, OLD_KEY), { standard: 'ok', svix: 'ok' });
    assert.deepEqual(rotationState(d, now), { state: 'overlap', until });
    // After the end (the library's clock is real, so the end moves instead of the clock).
    const ended = hook({ format: 'standard-webhooks', previous_key_until: now.toISOString() }, d.secrets);
    const after = send(ended, now, values);
    assert.equal(after.headers['webhook-signature']?.split(' ').length, 1);
    assert.deepEqual(verdicts(after, KEY), { standard: 'ok', svix: 'ok' });
    assert.notEqual(verdicts(after, OLD_KEY).standard, 'ok');
    assert.notEqual(verdicts(after, OLD_KEY).svix, 'ok');
  });

  it('cloudevents-binary: the SDK reads the attributes from ce-* headers; signed too', () => {
    const r = send(hook({ format: 'cloudevents-binary' }));
    const ce = HTTP.toEvent({ headers: { ...r.headers }, body: r.body });
    assert.ok(!Array.isArray(ce));
    assert.equal(ce.specversion, '1.0');
    assert.equal(ce.id, r.headers['webhook-id']);
    assert.equal(ce.source, '/eventbus/prod');
    assert.equal(ce.type, 'com.eventbus.order_completed');
    assert.equal(ce.subject, 'e-1');
    assert.equal(ce.datacontenttype, 'application/json');
    assert.equal(new Date(ce.time ?? '').toISOString(), event.event_time);
    assert.deepEqual((ce.data as { event_data: unknown }).event_data, { value: 12 });
    assert.deepEqual(verdicts(r, KEY), { standard: 'ok', svix: 'ok' });
  });

  it('cloudevents-structured: one JSON envelope the SDK parses; signed too', () => {
    const r = send(hook({ format: 'cloudevents-structured' }));
    assert.match(r.headers['content-type'] ?? '', /^application\/cloudevents\+json/);
    const ce = HTTP.toEvent({ headers: { ...r.headers }, body: r.body });
    assert.ok(!Array.isArray(ce));
    assert.equal(ce.id, r.headers['webhook-id']);
    assert.equal(ce.type, 'com.eventbus.order_completed');
    assert.equal(ce.source, '/eventbus/prod');
    assert.deepEqual((ce.data as { event_id: unknown }).event_id, 'e-1');
    assert.deepEqual(verdicts(r, KEY), { standard: 'ok', svix: 'ok' });
  });

  it('no format: eventbus-v2 as before, with no Standard Webhooks headers', () => {
    const r = send(hook({}), new Date(), { signing_key: 'sekrit' });
    assert.match(r.headers[WEBHOOK_HEADERS.signature] ?? '', /^v2=[0-9a-f]{64}$/);
    assert.equal(r.headers['webhook-signature'], undefined);
    assert.deepEqual(
      Object.keys(
        send(hook({ format: 'eventbus-v2' }), new Date(), { signing_key: 'sekrit' }).headers,
      ).sort(),
      Object.keys(r.headers).sort(),
    );
  });

  it('refuses, with its reason, an unknown format and a key that is not a Standard Webhooks secret', () => {
    const unknown = webhookDriver.prepare(event, {
      destination: hook({ format: 'json' }),
      secrets: { signing_key: KEY },
      now: new Date(),
    });
    assert.deepEqual(unknown, {
      ok: false,
      reason:
        'config.format must be one of standard-webhooks, cloudevents-binary, cloudevents-structured, eventbus-v2',
    });
    const badKey = webhookDriver.prepare(event, {
      destination: hook({ format: 'standard-webhooks' }),
      secrets: { signing_key: 'not base64!' },
      now: new Date(),
    });
    assert.ok(!badKey.ok);
    assert.match(badKey.reason, /whsec_ followed by base64/);
  });

  it('the type rule: lower case, runs of other characters as one _', () => {
    assert.equal(cloudEventType('purchase'), 'com.eventbus.purchase');
    assert.equal(cloudEventType('Order Completed!'), 'com.eventbus.order_completed_');
    assert.equal(cloudEventType('checkout.step-2'), 'com.eventbus.checkout.step-2');
  });

  it('settings check warns about a webhook without format and a rotation without an end', () => {
    const now = new Date('2026-11-27T00:00:00Z');
    const settings = { name: 'w', project: 'w-project', region: 'europe-west1' };
    const warnings = webhookFormatWarnings(
      {
        ...settings,
        destinations: [
          hook({}),
          hook({ format: 'standard-webhooks' }, { signing_key: 'a', signing_key_previous: 'b' }),
          hook({ format: 'standard-webhooks' }),
        ],
      },
      now,
    );
    assert.equal(warnings.length, 3);
    assert.match(
      warnings[0] ?? '',
      /without config\.format sends the eventbus-v2 format.*format: standard-webhooks/,
    );
    // The previous release's second secret still signs, with a nudge toward versions of one secret.
    assert.match(
      warnings[1] ?? '',
      /names a second secret .* still signs; name versions .*signing_key_version/,
    );
    assert.match(warnings[2] ?? '', /a previous key is named without config\.previous_key_until/);
  });

  it('the studio’s line per webhook: its format and where its key rotation stands', () => {
    const now = new Date('2026-11-27T00:00:00Z');
    const pair = { signing_key: 'a', signing_key_previous: 'b' };
    assert.deepEqual(
      webhookSigning(
        [
          hook({}),
          {
            ...hook({ format: 'cloudevents-binary', previous_key_until: '2026-12-01T00:00:00Z' }, pair),
            id: 'ce',
          },
          {
            ...hook({ format: 'standard-webhooks', previous_key_until: '2026-11-01T00:00:00Z' }, pair),
            id: 'sw',
          },
          { id: 'meta', type: 'meta_capi' },
        ],
        now,
      ),
      {
        crm: 'eventbus-v2 (no format set: as before); one key',
        ce: 'cloudevents-binary; key rotation: the current and the previous key both sign until 2026-12-01T00:00:00Z',
        sw: 'standard-webhooks; key rotation ended at 2026-11-01T00:00:00Z: only the current key signs',
      },
    );
  });
});
