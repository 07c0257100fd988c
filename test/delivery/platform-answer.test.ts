/**
 * What the platform answered, in the ledger (issue #62): one push through the forward core to the
 * Meta and TikTok stand-ins over real HTTP leaves a row whose platform columns hold what the
 * stand-in said (`events_received`, `fbtrace_id`; `code`, `message`, `request_id`); an answer that
 * echoes a hashed e-mail, an e-mail or the access token keeps none of them in its excerpt.
 */
import assert from 'node:assert/strict';
import { createHttpSender } from '../../adapters/http-sender.ts';
import { type ForwardDeps, forwardPush } from '../../core/delivery/forward.ts';
import type { LedgerRow } from '../../core/delivery/ledger.ts';
import { decodePush, deliveryMessage, type PushedMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import type { InboundResponse } from '../../core/platforms/driver.ts';
import { driverFor } from '../../core/platforms/drivers.ts';
import { MAX_EXCERPT_CHARS } from '../../core/platforms/platform-answer.ts';
import {
  type PlatformReceiver,
  startMetaReceiver,
  startTikTokReceiver,
} from '../../local/platforms/index.ts';
import type { Destination } from '../../schemas/settings.ts';
import { JOHN_SMITH, storedEvent } from '../unit/linkage/sample-events.ts';

const TOKEN = 'EAAGm0PX4ZCpsBAlocaltoken123';
const secrets: Record<string, string> = {
  META_TOKEN: TOKEN,
  TIKTOK_TOKEN: TOKEN,
  BAD_TOKEN: 'not-issued-by-meta',
};

function pushOf(event: StoredEvent, destination: string): PushedMessage {
  const m = deliveryMessage(event, destination);
  const decoded = decodePush({
    message: {
      data: Buffer.from(m.data).toString('base64'),
      attributes: m.attributes,
      messageId: `m-${destination}`,
    },
    subscription: `projects/p/subscriptions/deliveries-${destination}`,
    deliveryAttempt: 1,
  });
  assert.ok(decoded.ok);
  return decoded.push;
}

/** A catalogue event that happened a minute ago (the platforms' windows run on the real clock). */
const recent = (name: string): StoredEvent => ({
  ...storedEvent(name),
  event_time: new Date(Date.now() - 60_000).toISOString(),
});

function deps(destinations: Destination[], send?: ForwardDeps['send']): ForwardDeps {
  return {
    destinations,
    driverFor,
    getSecret: (name) => secrets[name],
    send: send ?? createHttpSender(),
    now: () => new Date(),
  };
}

async function rowOf(event: StoredEvent, d: ForwardDeps, destination: string): Promise<LedgerRow> {
  const result = await forwardPush(pushOf(event, destination), d);
  const row = result.entries[0]?.row;
  assert.ok(row, result.summary);
  return row;
}

describe('the ledger keeps what the platform answered (forward core, loopback stand-ins)', () => {
  let meta: PlatformReceiver;
  let tiktok: PlatformReceiver;
  let metaDest: Destination;
  before(async () => {
    meta = await startMetaReceiver({ accessToken: TOKEN });
    tiktok = await startTikTokReceiver({ accessToken: TOKEN });
    metaDest = {
      id: 'meta',
      type: 'meta_capi',
      base_url: meta.url,
      config: { pixel_id: '123456789012345' },
      secrets: { access_token: 'META_TOKEN' },
    };
  });
  after(async () => {
    await meta?.close();
    await tiktok?.close();
  });

  it("a Meta delivery's row holds the stand-in's events_received and fbtrace_id", async () => {
    const row = await rowOf(recent('purchase'), deps([metaDest]), 'meta');
    assert.equal(row.status, 'delivered', row.reason ?? '');
    assert.equal(row.platform_ref, 'AbCdEfGh123');
    assert.equal(row.platform_events_received, 1);
    assert.deepEqual(JSON.parse(row.platform_response ?? 'null'), { events_received: 1 });
  });

  it("a refused Meta request's row keeps Meta's codes and trace id, not the body", async () => {
    const badToken = { ...metaDest, secrets: { access_token: 'BAD_TOKEN' } };
    const row = await rowOf(recent('purchase'), deps([badToken]), 'meta');
    assert.equal(row.status, 'rejected', row.reason ?? '');
    assert.equal(row.platform_ref, 'AbCdEfGh123');
    assert.equal(row.platform_events_received, null);
    const excerpt = JSON.parse(row.platform_response ?? '{}') as { error?: Record<string, unknown> };
    assert.equal(excerpt.error?.['code'], 190);
    assert.equal(excerpt.error?.['type'], 'OAuthException');
    assert.ok(!('is_transient' in (excerpt.error ?? {})), 'only allow-listed fields');
  });

  it("a TikTok delivery's row holds TikTok's request_id, code and message", async () => {
    const dest: Destination = {
      id: 'tt',
      type: 'tiktok_events',
      base_url: tiktok.url,
      config: { pixel_code: 'CABCDEFGHIJ1234567' },
      secrets: { access_token: 'TIKTOK_TOKEN' },
    };
    const row = await rowOf(recent('view_content'), deps([dest]), 'tt');
    assert.equal(row.status, 'delivered', row.reason ?? '');
    assert.equal(row.platform_ref, '2024111608000001');
    const excerpt = JSON.parse(row.platform_response ?? '{}') as Record<string, unknown>;
    assert.equal(excerpt['code'], 0);
    assert.equal(typeof excerpt['message'], 'string');
  });

  it('keeps no hashed e-mail, e-mail or token from an answer that echoes them, and stays under 1 KB', async () => {
    const echo: InboundResponse = {
      kind: 'response',
      status: 400,
      headers: {},
      body: JSON.stringify({
        error: {
          code: 100,
          type: 'OAuthException',
          message: `Invalid parameter for access_token=${TOKEN}`,
          error_user_msg: `user_data.em ${JOHN_SMITH} (jane.doe@example.com) does not match; token ya29.a0AfH6SMBx-local`,
          error_user_title: 'x'.repeat(5000),
          fbtrace_id: 'AbCdEfGh123',
        },
        messages: Array.from({ length: 50 }, (_, i) => `message ${i} ${'y'.repeat(200)}`),
      }),
    };
    const row = await rowOf(
      recent('purchase'),
      deps([metaDest], async () => echo),
      'meta',
    );
    const excerpt = row.platform_response ?? '';
    assert.ok(excerpt.length > 0 && excerpt.length <= MAX_EXCERPT_CHARS, `${excerpt.length}`);
    for (const secret of [TOKEN, JOHN_SMITH, 'jane.doe@example.com', 'ya29.a0AfH6SMBx-local'])
      assert.ok(!excerpt.includes(secret), `excerpt holds ${secret}: ${excerpt}`);
    assert.match(excerpt, /\[hash\]/);
    assert.equal(row.platform_ref, 'AbCdEfGh123');
  });

  it('a network error and a webhook answer leave the platform columns out', async () => {
    const row = await rowOf(
      recent('purchase'),
      deps([metaDest], async () => ({ kind: 'network_error', message: 'ECONNREFUSED' })),
      'meta',
    );
    assert.equal(row.status, 'failed');
    assert.equal(row.platform_ref, undefined);
    assert.equal(row.platform_response, undefined);
  });
});
