/** The PII policy on any object, and the pattern scrub of outgoing URLs, text and payloads. */
import assert from 'node:assert/strict';
import { applyPiiPolicy, REDACTED, scrubPayload, scrubText, scrubUrl, sha256 } from '../../../core/pii.ts';
import type { DriverContext } from '../../../core/platforms/driver.ts';
import { ga4MpDriver } from '../../../core/platforms/ga4/index.ts';
import { metaCapiDriver } from '../../../core/platforms/meta/index.ts';
import { tiktokEventsDriver } from '../../../core/platforms/tiktok/index.ts';
import { webhookDriver } from '../../../core/platforms/webhook/index.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { storedEvent } from '../linkage/sample-events.ts';

describe('privacy: the PII policy', () => {
  it('hashes and drops dotted paths on a copy, leaving the rest and the input as they were', () => {
    const input = {
      user: { email: ' Ann@Example.com ', country: 'de' },
      device: { ip: '203.0.113.9' },
      n: 1,
    };
    const out = applyPiiPolicy(input, { hashInWarehouse: ['user.email', 'user.phone'], drop: ['device.ip'] });
    assert.deepEqual(out, { user: { email: sha256('ann@example.com'), country: 'de' }, device: {}, n: 1 });
    assert.equal(input.user.email, ' Ann@Example.com ');
    const hashed = { user: { email: sha256('x') } };
    assert.deepEqual(applyPiiPolicy(hashed, { hashInWarehouse: ['user.email'], drop: [] }), hashed);
  });
});

describe('privacy: the outgoing scrub', () => {
  it('replaces emails and international phone numbers in free text, and nothing else', () => {
    assert.equal(scrubText('mail ann.b+shop@example.co.uk now'), `mail ${REDACTED} now`);
    assert.equal(scrubText('call +49 (151) 1234-5678 today'), `call ${REDACTED} today`);
    for (const kept of [
      'order 2026-01-01 #1234567',
      'Red Shoe, size 42',
      '+5 stars',
      '2026-01-01T10:00:00+01:00',
    ])
      assert.equal(scrubText(kept), kept);
  });

  it('redacts query values that hold or are named like personal data, keeping other bytes as sent', () => {
    assert.equal(
      scrubUrl('https://shop.example/p?utm_source=mail&u=ann%40example.com&x=1#top'),
      `https://shop.example/p?utm_source=mail&u=${REDACTED}&x=1#top`,
    );
    assert.equal(
      scrubUrl('https://shop.example/thanks?email=someone&phone=%2B4915112345678&q=a%20b'),
      `https://shop.example/thanks?email=${REDACTED}&phone=${REDACTED}&q=a%20b`,
    );
    assert.equal(
      scrubUrl('https://shop.example/u/ann@example.com/orders'),
      `https://shop.example/u/${REDACTED}/orders`,
    );
    const clean = 'https://shop.example/p/red-shoe?ref=home&gclid=abc';
    assert.equal(scrubUrl(clean), clean);
  });

  it('walks a payload by value kind, leaving hashes, numbers and clean fields alone', () => {
    const em = sha256('ann@example.com');
    const out = scrubPayload({
      event_source_url: 'https://shop.example/?e=ann@example.com',
      user_data: { em: [em], client_ip_address: '203.0.113.9' },
      custom_data: { note: 'ask ann@example.com', value: 3, tags: ['a', 'b@c.example'] },
    });
    assert.deepEqual(out, {
      event_source_url: `https://shop.example/?e=${REDACTED}`,
      user_data: { em: [em], client_ip_address: '203.0.113.9' },
      custom_data: { note: `ask ${REDACTED}`, value: 3, tags: ['a', REDACTED] },
    });
  });
});

describe('privacy: every platform payload is scrubbed, configurable per destination', () => {
  const leaky = () => ({
    ...storedEvent('view_content'),
    event_time: new Date(Date.now() - 60_000).toISOString(),
    page: {
      url: 'https://shop.example/p?email=ann%40example.com',
      referrer: 'https://mail.example/?to=ann@example.com',
    },
  });
  const ctx = (destination: Destination, secrets: Record<string, string>): DriverContext => ({
    destination,
    secrets,
    now: new Date(),
  });
  const cases: [string, typeof metaCapiDriver, Destination, Record<string, string>][] = [
    [
      'meta',
      metaCapiDriver,
      { id: 'm', type: 'meta_capi', config: { pixel_id: '123456789012345' } },
      { access_token: 't' },
    ],
    [
      'ga4',
      ga4MpDriver,
      { id: 'g', type: 'ga4_mp', config: { measurement_id: 'G-ABC123' } },
      { api_secret: 's' },
    ],
    [
      'tiktok',
      tiktokEventsDriver,
      { id: 't', type: 'tiktok_events', config: { pixel_code: 'CABC123' } },
      { access_token: 't' },
    ],
    [
      'webhook (opted in)',
      webhookDriver,
      { id: 'w', type: 'webhook', base_url: 'http://127.0.0.1:1', scrub_pii: true },
      { signing_key: 'k' },
    ],
  ];
  for (const [name, driver, destination, secrets] of cases) {
    it(`${name}: no address leaves in the body; scrub_pii: false turns it off`, () => {
      const p = driver.prepare(leaky(), ctx(destination, secrets));
      assert.ok(p.ok, p.ok ? '' : p.reason);
      assert.doesNotMatch(p.request.body, /ann(@|%40)example\.com/);
      const off = driver.prepare(leaky(), ctx({ ...destination, scrub_pii: false }, secrets));
      assert.ok(off.ok, off.ok ? '' : off.reason);
      assert.match(off.request.body, /ann(@|%40)example\.com/);
    });
  }

  it('webhook: receives the stored event as it is by default', () => {
    const p = webhookDriver.prepare(
      leaky(),
      ctx({ id: 'w', type: 'webhook', base_url: 'http://127.0.0.1:1' }, { signing_key: 'k' }),
    );
    assert.ok(p.ok);
    assert.match(p.request.body, /ann%40example\.com/);
  });
});
