/**
 * Google Ads end to end on the delivery stack (emulators, the store and forward functions under
 * the functions-framework CLI) with the strict local stand-in of the Data Manager API: the forward
 * function obtains its access token from the stand-in's token endpoint with the credentials
 * secret (google-auth-library, as in production), a purchase and a lead with consent are
 * delivered, a batch with one bad event gives the others `delivered` and it `rejected` with the
 * reason, Google's own refusal is recorded in its words, and an expired token is refreshed and
 * the call made once more.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LedgerRow } from '../../core/delivery/ledger.ts';
import {
  type GoogleAdsReceiver,
  googleError,
  standInCredentials,
  startGoogleAdsReceiver,
} from '../../local/platforms/index.ts';
import { type Stack, startStack, testSettings, waitFor } from './support/stack.ts';

const CONSENT = { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' };

describe('Google Ads end to end (delivery stack, Data Manager stand-in)', function () {
  this.timeout(90_000);
  let stack: Stack;
  let standIn: GoogleAdsReceiver;
  const run = Date.now().toString(36);

  before(async () => {
    standIn = await startGoogleAdsReceiver();
    stack = await startStack(
      testSettings([
        {
          id: 'ads',
          type: 'google_ads',
          base_url: standIn.url,
          config: { operating_account_id: '1234567890' },
          secrets: { credentials: 'GOOGLE_ADS_CREDENTIALS' },
          mappings: { purchase: { event: '111' }, lead: { event: '222' } },
          retry: { minimum_backoff: '0.1s', maximum_backoff: '0.2s', max_attempts: 5 },
          timeout_ms: 5000,
        },
      ]),
    );
    // Read by the forward function at its first Google Ads delivery, as Secret Manager's would be.
    writeFileSync(join(stack.dataDir, 'secrets', 'GOOGLE_ADS_CREDENTIALS'), standInCredentials(standIn.url));
  });
  after(async () => {
    await stack?.close();
    await standIn?.close();
  });

  const rowsOf = (id: string) =>
    waitFor(`the ledger row of ${id}`, async () => {
      const rows = (await stack.ledger(id)).filter((r) => r.destination === 'ads' && r.status !== 'failed');
      return rows.length > 0 ? rows : undefined;
    });
  const only = (rows: readonly LedgerRow[]) => {
    assert.equal(rows.length, 1, JSON.stringify(rows));
    return rows[0] as LedgerRow;
  };

  it('a purchase and a lead with consent reach the stand-in and are delivered with its requestId', async () => {
    const purchase = `purchase-${run}`;
    const lead = `lead-${run}`;
    await stack.publishEvents([
      {
        event_name: 'purchase',
        event_id: purchase,
        transaction_id: `T-${run}`,
        value: 59.9,
        currency: 'EUR',
        items: [{ item_id: 'SKU1', price: 59.9, quantity: 1 }],
        campaign: { gclid: 'Cj0KCQ-e2e' },
        user: { email: 'Jane.Doe+shop@gmail.com' },
        consent: CONSENT,
      },
      {
        event_name: 'lead',
        event_id: lead,
        lead_type: 'quote',
        user: { email: 'buyer@example.com', phone: '+1 800 555 0100' },
        consent: CONSENT,
      },
    ]);
    for (const id of [purchase, lead]) {
      const row = only(await rowsOf(id));
      assert.equal(row.status, 'delivered', row.reason ?? '');
      assert.match(row.reason ?? '', /requestId=/);
    }
    const seen = standIn.received.filter((r) => r.path === '/v1/events:ingest');
    assert.ok(seen.length >= 2);
    for (const r of seen) assert.deepEqual(r.problems, [], 'the stand-in found nothing wrong');
    const transactionIds = seen.flatMap((r) =>
      (r.body as { events: { transactionId: string }[] }).events.map((e) => e.transactionId),
    );
    assert.ok(transactionIds.includes(`T-${run}`) && transactionIds.includes(lead));
  });

  it('a batch with one bad event: the others delivered, the bad one rejected with the reason', async () => {
    const ids = [`b1-${run}`, `b2-${run}`, `bad-${run}`, `b3-${run}`];
    await stack.publishEvents(
      ids.map((id) => ({
        event_name: 'lead',
        event_id: id,
        // The bad one has nothing Google Ads could match it by: Data Manager would refuse the
        // whole request for it, so it is refused alone before sending.
        ...(id.startsWith('bad-') ? {} : { campaign: { gclid: `G-${id}` } }),
        consent: CONSENT,
      })),
    );
    const rows = await Promise.all(ids.map(async (id) => only(await rowsOf(id))));
    assert.deepEqual(
      rows.map((r) => r.status),
      ['delivered', 'delivered', 'rejected', 'delivered'],
    );
    assert.match(rows[2]?.reason ?? '', /google_ads payload refused: adIdentifiers holds no click id/);
    const sent = standIn.received.flatMap((r) =>
      ((r.body as { events?: { transactionId: string }[] })?.events ?? []).map((e) => e.transactionId),
    );
    assert.ok(!sent.includes(`bad-${run}`), 'the bad event never reached Google');
  });

  it("Google's refusal is recorded in Google's words (INVALID_ARGUMENT, not retried)", async () => {
    const id = `refused-${run}`;
    standIn.failNext(
      googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
        'destinations[0].productDestinationId: Conversion action not found.',
      ]),
    );
    await stack.publishEvents([
      { event_name: 'lead', event_id: id, campaign: { gclid: 'G-r' }, consent: CONSENT },
    ]);
    const row = only(await rowsOf(id));
    assert.equal(row.status, 'rejected');
    assert.equal(
      row.reason,
      'google ads INVALID_ARGUMENT (400): Request contains an invalid argument. (destinations[0].productDestinationId: Conversion action not found.)',
    );
  });

  it('an expired access token is refreshed and the call made once more', async () => {
    const issued = standIn.tokensIssued();
    standIn.expireTokens();
    const id = `expired-${run}`;
    await stack.publishEvents([
      { event_name: 'lead', event_id: id, campaign: { gclid: 'G-x' }, consent: CONSENT },
    ]);
    const row = only(await rowsOf(id));
    assert.equal(row.status, 'delivered', row.reason ?? '');
    assert.match(row.reason ?? '', /^access token refreshed after a 401; requestId=/);
    assert.equal(standIn.tokensIssued(), issued + 1, 'one fresh token');
    const calls = standIn.received.filter((r) =>
      ((r.body as { events?: { transactionId: string }[] })?.events ?? []).some(
        (e) => e.transactionId === id,
      ),
    );
    assert.deepEqual(
      calls.map((c) => c.status),
      [401, 200],
    );
  });
});
