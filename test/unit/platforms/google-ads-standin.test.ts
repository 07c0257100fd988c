/**
 * The Google Ads driver against its strict local stand-in (local/platforms/google-ads.ts) over
 * real HTTP, with access tokens obtained by google-auth-library from the stand-in's token
 * endpoint (adapters/google-oauth.ts): what the driver sends passes the stand-in's rules, what
 * Google refuses the stand-in refuses in Google's error envelope, and an expired token is
 * answered 401 until a fresh one is asked for.
 */
import assert from 'node:assert/strict';
import type { StoredEvent } from '../../../core/event.ts';
import type { DriverContext } from '../../../core/platforms/driver.ts';
import { DATA_MANAGER_SCOPE } from '../../../core/platforms/google-ads/driver.ts';
import { googleAdsDriver } from '../../../core/platforms/google-ads/index.ts';
import {
  describeRequestStatus,
  readRequestStatus,
  requestStatusUrl,
} from '../../../core/platforms/google-ads/request-status.ts';
import {
  type GoogleAdsReceiver,
  standInCredentials,
  startGoogleAdsReceiver,
} from '../../../local/platforms/index.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { loopbackTokens } from '../../support/loopback-tokens.ts';
import { sendOverHttp as send, storedEvent } from '../linkage/sample-events.ts';

describe('Google Ads driver against its local stand-in', () => {
  let standIn: GoogleAdsReceiver;
  let destination: Destination;
  let credentials: string;
  const tokens = loopbackTokens();
  before(async () => {
    standIn = await startGoogleAdsReceiver();
    destination = {
      id: 'ads',
      type: 'google_ads',
      base_url: standIn.url,
      config: { operating_account_id: '123-456-7890' },
      secrets: { credentials: 'ADS_CREDENTIALS' },
      mappings: { purchase: { event: '111' }, lead: { event: '222' } },
    };
    // An authorized user's credentials file, refreshed at the stand-in's token endpoint.
    credentials = standInCredentials(standIn.url);
  });
  after(() => standIn.close());

  const ctxWith = async (fresh = false, d: Destination = destination): Promise<DriverContext> => ({
    destination: d,
    secrets: { credentials, access_token: await tokens(credentials, DATA_MANAGER_SCOPE, fresh) },
    now: new Date(),
  });
  const deliver = async (events: StoredEvent[], ctx: DriverContext) => {
    const batch = googleAdsDriver.prepareBatch?.(events, ctx);
    assert.ok(batch);
    assert.deepEqual(batch.rejected, []);
    const request = batch.requests[0]?.request;
    assert.ok(request);
    return { request, outcome: googleAdsDriver.interpret(await send(request), ctx) };
  };

  it('a purchase and a lead with consent are taken: the stand-in finds nothing wrong and answers a requestId', async () => {
    const ctx = await ctxWith();
    const { outcome } = await deliver([storedEvent('purchase'), storedEvent('lead')], ctx);
    assert.equal(outcome.status, 'delivered', JSON.stringify(outcome));
    assert.match(outcome.status === 'delivered' ? (outcome.detail ?? '') : '', /^requestId=/);
    const last = standIn.received.at(-1);
    assert.deepEqual(last?.problems, []);
    assert.equal(standIn.tokensIssued(), 1, 'the token came from the stand-in through google-auth-library');
  });

  it('an expired token is answered 401 UNAUTHENTICATED; a fresh one is taken', async () => {
    standIn.expireTokens();
    const stale = await ctxWith();
    const { outcome } = await deliver([storedEvent('lead')], stale);
    assert.equal(outcome.status, 'rejected');
    assert.equal(outcome.httpStatus, 401);
    const fresh = await ctxWith(true);
    assert.notEqual(fresh.secrets['access_token'], stale.secrets['access_token']);
    assert.equal((await deliver([storedEvent('lead')], fresh)).outcome.status, 'delivered');
  });

  it('test mode is validateOnly: checked, nothing kept, no requestId', async () => {
    const ctx = await ctxWith(false, { ...destination, test_mode: true });
    const { request, outcome } = await deliver([storedEvent('lead')], ctx);
    assert.equal(JSON.parse(request.body).validateOnly, true);
    assert.deepEqual(standIn.received.at(-1)?.response, {});
    assert.equal(outcome.status, 'delivered');
  });

  it("refuses, in Google's envelope, what Google refuses — and the driver reads the reason", async () => {
    const ctx = await ctxWith();
    const good = googleAdsDriver.prepare(storedEvent('lead'), ctx);
    assert.ok(good.ok);
    const body = JSON.parse(good.request.body) as Record<string, unknown> & {
      events: Record<string, unknown>[];
    };
    const event = body.events[0] as Record<string, unknown>;
    const refusal = async (changed: Record<string, unknown>) => {
      const response = await send({ ...good.request, body: JSON.stringify(changed) });
      assert.equal(response.kind === 'response' && response.status, 400);
      const outcome = googleAdsDriver.interpret(response, ctx);
      assert.equal(outcome.status, 'rejected');
      return outcome.status === 'rejected' ? outcome.reason : '';
    };
    assert.match(
      await refusal({
        ...body,
        events: [{ ...event, userData: { userIdentifiers: [{ emailAddress: 'a@b.com' }] } }],
      }),
      /^google ads INVALID_ARGUMENT \(400\): .*events\[0\]\.userData\.userIdentifiers\[0\]\.emailAddress: must be a SHA-256 hash encoded as HEX/,
    );
    const { transactionId: _t, ...noId } = event;
    assert.match(await refusal({ ...body, events: [noId] }), /events\[0\]\.transactionId: is required/);
    assert.match(
      await refusal({ ...body, events: [{ ...event, eventName: undefined, conversion: 1 }] }),
      /Unknown name "conversion"/,
    );
    assert.match(
      await refusal({ ...body, encoding: undefined }),
      /encoding: is required when user data is sent/,
    );
    const destinations = body['destinations'] as Record<string, unknown>[];
    assert.match(
      await refusal({
        ...body,
        destinations: destinations.map((d) => ({
          ...d,
          operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '123-456-7890' },
        })),
      }),
      /operatingAccount\.accountId: must be the 10 digits/,
    );
    assert.match(
      await refusal({ ...body, events: Array(2001).fill(event) }),
      /events: must hold 1 to 2000 events/,
    );
    assert.match(
      await refusal({ ...body, destinations: Array(11).fill(destinations[0]) }),
      /destinations: must hold 1 to 10 destinations/,
    );
    const last = standIn.received.at(-1) as { response: { error: Record<string, unknown> } };
    assert.deepEqual(Object.keys(last.response.error), ['code', 'message', 'status', 'details']);
  });

  it('a click outside every conversion window is accepted, then reported in the request diagnostics', async () => {
    const ctx = await ctxWith();
    const clicked = (id: string, daysAgo: number) =>
      ({
        ...storedEvent('purchase'),
        event_id: id,
        event_data: { ...storedEvent('purchase').event_data, transaction_id: id },
        event_time: new Date(ctx.now.getTime() - daysAgo * 86_400_000).toISOString(),
        campaign: { gclid: `gclid-${id}` },
      }) as StoredEvent;
    const statusOf = async (events: StoredEvent[]) => {
      const { outcome } = await deliver(events, ctx);
      assert.equal(outcome.status, 'delivered', JSON.stringify(outcome));
      const requestId = /requestId=(\S+)/.exec(
        outcome.status === 'delivered' ? (outcome.detail ?? '') : '',
      )?.[1];
      assert.ok(requestId);
      const res = await fetch(requestStatusUrl(requestId, standIn.url), {
        headers: { authorization: `Bearer ${ctx.secrets['access_token']}` },
      });
      return describeRequestStatus(readRequestStatus(await res.json()));
    };
    assert.equal(
      await statusOf([clicked('recent', 2), clicked('stale', 100)]),
      '111 PARTIAL_SUCCESS: 1 PROCESSING_ERROR_REASON_EVENT_TOO_OLD',
    );
    assert.equal(
      await statusOf([clicked('stale-only', 91)]),
      '111 FAILED: 1 PROCESSING_ERROR_REASON_EVENT_TOO_OLD',
    );
    assert.equal(await statusOf([clicked('fresh', 89)]), '111 SUCCESS');
  });

  it('a request without a token is refused before its body is read', async () => {
    const ctx = await ctxWith();
    const prepared = googleAdsDriver.prepare(storedEvent('lead'), ctx);
    assert.ok(prepared.ok);
    const response = await send({ ...prepared.request, headers: { 'content-type': 'application/json' } });
    assert.equal(response.kind === 'response' && response.status, 401);
  });
});
