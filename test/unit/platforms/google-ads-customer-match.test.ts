/**
 * Customer Match through the Data Manager API (core/platforms/google-ads/audience.ts): rows
 * become members with Google's normalisation and hashing, added with `audienceMembers:ingest` and
 * removed with `:remove` (mirror mode), 10,000 a request; against the stand-in over real HTTP a
 * list is added to, kept and removed from as the rows say.
 */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  CUSTOMER_MATCH_MAX_MEMBERS,
  customerMatchIdentifiers,
  customerMatchRequests,
} from '../../../core/platforms/google-ads/audience.ts';
import { DATA_MANAGER_SCOPE } from '../../../core/platforms/google-ads/driver.ts';
import {
  describeRequestStatus,
  readRequestStatus,
  requestIdOf,
  requestStatusUrl,
} from '../../../core/platforms/google-ads/request-status.ts';
import {
  type GoogleAdsReceiver,
  standInCredentials,
  startGoogleAdsReceiver,
} from '../../../local/platforms/index.ts';
import { loopbackTokens } from '../../support/loopback-tokens.ts';
import { sendOverHttp } from '../linkage/sample-events.ts';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const change = (n: number, op: 'upsert' | 'delete', data: Record<string, unknown>) => ({ n, op, data });
const TARGET = { operatingAccountId: '123-456-7890', userListId: '5550001' };

describe('Google Ads Customer Match (Data Manager audienceMembers)', () => {
  it("normalises a row's identifiers by Google's rules, an address only whole", () => {
    assert.deepEqual(
      customerMatchIdentifiers({
        email: 'Cloudy.SanFrancisco+shopping@gmail.com',
        phone: '(800)555-0100',
        country: 'US',
        first_name: 'Ann',
        last_name: 'Lee',
        postal_code: '94045',
      }),
      [
        { emailAddress: sha('cloudysanfrancisco@gmail.com') },
        { phoneNumber: sha('+18005550100') },
        { address: { givenName: sha('ann'), familyName: sha('lee'), regionCode: 'US', postalCode: '94045' } },
      ],
    );
    assert.deepEqual(customerMatchIdentifiers({ first_name: 'Ann', last_name: 'Lee', country: 'US' }), []);
  });

  it('adds with :ingest and removes with :remove, member consent from the row, a row without identifiers failed', () => {
    const built = customerMatchRequests(TARGET, [
      change(1, 'upsert', { email: 'a@example.com', ad_user_data: 'granted', ad_personalization: 'denied' }),
      change(2, 'delete', { email: 'b@example.com' }),
      change(3, 'upsert', { first_name: 'No', last_name: 'Match' }),
    ]);
    assert.deepEqual(
      built.requests.map((r) => [r.path, r.changes.map((c) => c.n)]),
      [
        ['https://datamanager.googleapis.com/v1/audienceMembers:ingest', [1]],
        ['https://datamanager.googleapis.com/v1/audienceMembers:remove', [2]],
      ],
    );
    assert.deepEqual(built.requests[0]?.body, {
      destinations: [
        {
          operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '1234567890' },
          productDestinationId: '5550001',
        },
      ],
      audienceMembers: [
        {
          userData: { userIdentifiers: [{ emailAddress: sha('a@example.com') }] },
          consent: { adUserData: 'CONSENT_GRANTED', adPersonalization: 'CONSENT_DENIED' },
        },
      ],
      encoding: 'HEX',
    });
    assert.deepEqual(
      built.failed.map((f) => f.change.n),
      [3],
    );
  });

  it('reads requestStatus:retrieve: each destination’s status with its error and warning counts', () => {
    assert.equal(requestIdOf('{"requestId":"r-1"}'), 'r-1');
    assert.equal(requestIdOf('{}'), undefined);
    assert.equal(requestIdOf('not json'), undefined);
    assert.equal(
      requestStatusUrl('r 1'),
      'https://datamanager.googleapis.com/v1/requestStatus:retrieve?requestId=r%201',
    );
    const answer = {
      requestStatusPerDestination: [
        {
          destination: { productDestinationId: '5550001' },
          requestStatus: 'PARTIAL_SUCCESS',
          errorInfo: { errorCounts: [{ recordCount: '2', reason: 'INVALID_EMAIL_FORMAT' }] },
          warningInfo: {
            warningCounts: [{ recordCount: '1', reason: 'PROCESSING_WARNING_REASON_INTERNAL_ERROR' }],
          },
        },
        { destination: { productDestinationId: '5550002' }, requestStatus: 'PROCESSING' },
      ],
    };
    assert.equal(
      describeRequestStatus(readRequestStatus(answer)),
      '5550001 PARTIAL_SUCCESS: 2 INVALID_EMAIL_FORMAT; warnings: 1 PROCESSING_WARNING_REASON_INTERNAL_ERROR\n5550002 PROCESSING',
    );
    assert.match(describeRequestStatus(readRequestStatus({})), /no status for this request/);
  });

  it('splits at 10,000 members a request', () => {
    const many = Array.from({ length: CUSTOMER_MATCH_MAX_MEMBERS + 1 }, (_, i) =>
      change(i, 'upsert', { email: `u${i}@example.com` }),
    );
    assert.deepEqual(
      customerMatchRequests(TARGET, many).requests.map((r) => r.changes.length),
      [CUSTOMER_MATCH_MAX_MEMBERS, 1],
    );
  });

  describe('against the stand-in: a list mirrors the rows', () => {
    let standIn: GoogleAdsReceiver;
    before(async () => {
      standIn = await startGoogleAdsReceiver();
    });
    after(() => standIn.close());

    const sync = async (changes: ReturnType<typeof change>[]) => {
      const token = await loopbackTokens()(standInCredentials(standIn.url), DATA_MANAGER_SCOPE, false);
      const built = customerMatchRequests({ ...TARGET, origin: standIn.url, termsAccepted: true }, changes);
      for (const r of built.requests) {
        const answer = await sendOverHttp({
          method: 'POST',
          url: r.path,
          redactedUrl: r.path,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(r.body),
        });
        assert.equal(answer.kind === 'response' && answer.status, 200, JSON.stringify(answer));
      }
    };
    const email = (e: string) => JSON.stringify({ emailAddress: sha(e) });

    it('adds, keeps and removes members', async () => {
      await sync([
        change(1, 'upsert', { email: 'a@example.com' }),
        change(2, 'upsert', { email: 'b@example.com' }),
      ]);
      assert.deepEqual(standIn.members('5550001'), [email('a@example.com'), email('b@example.com')].sort());
      // The next run: a unchanged (not sent), b gone from the model, c new.
      await sync([
        change(3, 'delete', { email: 'b@example.com' }),
        change(4, 'upsert', { email: 'c@example.com' }),
      ]);
      assert.deepEqual(standIn.members('5550001'), [email('a@example.com'), email('c@example.com')].sort());
      for (const r of standIn.received) assert.deepEqual(r.problems, []);
    });

    it('refuses unhashed identifiers in the whole request', async () => {
      const answer = await sendOverHttp({
        method: 'POST',
        url: `${standIn.url}/v1/audienceMembers:ingest`,
        redactedUrl: '',
        headers: {
          authorization: `Bearer ${await loopbackTokens()(standInCredentials(standIn.url), DATA_MANAGER_SCOPE, false)}`,
        },
        body: JSON.stringify({
          destinations: [
            {
              operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '1234567890' },
              productDestinationId: '5550001',
            },
          ],
          audienceMembers: [{ userData: { userIdentifiers: [{ emailAddress: 'a@example.com' }] } }],
          encoding: 'HEX',
        }),
      });
      assert.equal(answer.kind === 'response' && answer.status, 400);
      assert.match(
        answer.kind === 'response' ? answer.body : '',
        /audienceMembers\[0\]\.userData\.userIdentifiers\[0\]\.emailAddress/,
      );
    });
  });
});
