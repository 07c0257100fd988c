/**
 * Google Ads end to end on the local environment (`eventbus start`, what `npm start` runs) with a
 * `google_ads` destination pointed at the local receiver: the supervisor writes its credentials
 * secret as an authorized user file whose tokens the receiver's Data Manager stand-in issues, the
 * forward function exchanges it through google-auth-library, and a purchase and a lead with
 * consent, sent to the gateway, reach the stand-in and are `delivered`; a lead with nothing
 * Google Ads could match it by is `rejected` alone with the reason.
 */
import assert from 'node:assert/strict';
import { stopLocalCli } from '../support/local-start.ts';
import {
  GOOGLE_ADS_DESTINATION,
  type PlatformEnvironment,
  startWithDestinations,
} from '../support/platform-e2e.ts';

describe('end to end: Google Ads on the local environment', function () {
  this.timeout(180000);
  let env: PlatformEnvironment;
  const run = `g${Date.now().toString(36)}`;
  const consent = { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' };

  before(async () => {
    env = await startWithDestinations('eventbus-google-ads-', GOOGLE_ADS_DESTINATION);
  });
  after(() => stopLocalCli(env));

  const post = (topic: string, body: Record<string, unknown>) => env.post(topic, body);
  const ledger = (id: string) => env.ledger(id, 'google-ads');

  it('a purchase and a lead with consent reach the stand-in and are delivered; a lead Google could not match is rejected alone', async () => {
    await post('purchase', {
      event_id: `${run}-p`,
      transaction_id: `T-${run}`,
      value: 59.9,
      currency: 'EUR',
      campaign: { gclid: 'Cj0KCQ-local' },
      user: { email: 'Jane.Doe+shop@gmail.com' },
      consent,
    });
    await post('lead', { event_id: `${run}-l`, user: { email: 'buyer@example.com' }, consent });
    await post('lead', { event_id: `${run}-bad`, consent });
    for (const id of [`${run}-p`, `${run}-l`]) {
      const row = await ledger(id);
      assert.equal(row.status, 'delivered', row.reason ?? '');
      assert.match(row.reason ?? '', /requestId=/);
    }
    const bad = await ledger(`${run}-bad`);
    assert.equal(bad.status, 'rejected');
    assert.match(bad.reason ?? '', /adIdentifiers holds no click id/);
    const res = await fetch(`http://127.0.0.1:${env.ports['receiver']}/received.json`);
    const list = (await res.json()) as {
      received: { destination: string; eventId?: string; status: number }[];
    };
    const mine = list.received.filter((r) => r.destination === 'google-ads' && r.eventId?.includes(run));
    assert.deepEqual(mine.map((r) => r.status).sort(), [200, 200]);
  });
});
