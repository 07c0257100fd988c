/**
 * An erasure sent to the platforms (functions/schedule/erasure-platforms.ts) over real HTTP to the
 * loopback stand-ins: GA4's user deletion under the schedule function's own token (the
 * analytics.edit scope), a Customer Match list's members removed under the connection's
 * credentials (google-auth-library against the stand-in's token endpoint), a Meta audience's
 * users deleted with the connection's token; a notice for each, `sent` with the platform's receipt,
 * `unsupported` for a destination without a deletion API. A refusal, a 401, a network error, a
 * missing secret and an unreadable registry each give a `failed` notice and never stop the others
 * nor reject; no notice names the person.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { AccessTokens } from '../../adapters/google-oauth.ts';
import { createHttpSender } from '../../adapters/http-sender.ts';
import type { Snapshot } from '../../adapters/registry.ts';
import { GA4_USER_DELETION_SCOPE } from '../../core/platforms/ga4/erasure.ts';
import { customerMatchRequests } from '../../core/platforms/google-ads/audience.ts';
import { DATA_MANAGER_SCOPE } from '../../core/platforms/google-ads/driver.ts';
import { keptMembers } from '../../core/syncs/audience-members.ts';
import {
  createPlatformErasure,
  type PlatformErasureDeps,
} from '../../functions/schedule/erasure-platforms.ts';
import {
  type GoogleAdsReceiver,
  googleError,
  type PlatformReceiver,
  standInCredentials,
  startGa4Receiver,
  startGoogleAdsReceiver,
  startMetaReceiver,
} from '../../local/platforms/index.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import { loopbackTokens } from '../support/loopback-tokens.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const OWN_TOKEN = 'ya29.schedule-own';
const META_TOKEN = 'meta-system-user-token';
const PERSON = {
  emails: ['Ann@Example.com'],
  phones: ['+33 6 12 34 56 78'],
  userIds: ['u-42'],
  anonymousIds: ['1234.5678'],
};
/** Every form of the person's identifiers a notice must not hold. */
const NAMES = [
  'Ann@Example.com',
  'ann@example.com',
  '612345678',
  'u-42',
  '1234.5678',
  sha('ann@example.com'),
];

const snapshot = (syncs: Record<string, SyncSpec>): Snapshot =>
  ({
    resources: new Map(Object.entries(syncs).map(([name, spec]) => [name, { name, version: '1', spec }])),
  }) as unknown as Snapshot;

const spec = (destination: SyncSpec['destination']): SyncSpec =>
  ({
    model: 'SELECT email, phone FROM crm.vip',
    primary_key: ['email'],
    mode: 'mirror',
    schedule: { manual: true },
    destination,
  }) as SyncSpec;

describe('erasure at the platforms (schedule function, GA4, Data Manager and Meta stand-ins)', () => {
  let ga4: PlatformReceiver;
  let ads: GoogleAdsReceiver;
  let meta: PlatformReceiver;
  const realTokens = loopbackTokens();
  before(async () => {
    [ga4, ads, meta] = await Promise.all([
      startGa4Receiver({ accessToken: OWN_TOKEN }),
      startGoogleAdsReceiver(),
      startMetaReceiver({ accessToken: META_TOKEN }),
    ]);
  });
  after(() => Promise.all([ga4.close(), ads.close(), meta.close()]));

  /** The deps of one erasure against the stand-ins; `o` replaces a part. */
  function deps(o: Partial<PlatformErasureDeps> = {}) {
    const asked: { credentials: string; scope: string; fresh: boolean }[] = [];
    // The function's own identity gets OWN_TOKEN (its metadata server on Google Cloud); named
    // credentials go through google-auth-library to the Data Manager stand-in's token endpoint.
    const accessToken: AccessTokens = async (credentials, scope, fresh) => {
      asked.push({ credentials: credentials === '' ? '' : 'ADS_CREDS', scope, fresh });
      return credentials === '' ? OWN_TOKEN : realTokens(credentials, scope, fresh);
    };
    const settings = {
      name: 'shop',
      project: 'shop-project',
      region: 'europe-west1',
      destinations: [
        {
          id: 'ga',
          type: 'ga4_mp',
          base_url: ga4.url,
          config: { measurement_id: 'G-TEST' },
          secrets: { api_secret: 'GA4_SECRET' },
          user_deletion: { property: '123456', url: ga4.url },
        },
        { id: 'fb', type: 'meta_capi', config: { pixel_id: '1' }, secrets: { access_token: 'FB_CAPI' } },
      ],
      connections: [
        { id: 'ads', type: 'google_ads_audience', url: ads.url, secrets: { credentials: 'ADS_CREDS' } },
        { id: 'aud', type: 'meta_audience', url: meta.url, secrets: { access_token: 'META_AUD' } },
      ],
    } as Settings;
    const secrets: Record<string, string> = {
      ADS_CREDS: standInCredentials(ads.url),
      META_AUD: META_TOKEN,
    };
    const d: PlatformErasureDeps = {
      settings,
      syncs: async () =>
        snapshot({
          'vip-ads': spec({
            google_ads_audience: {
              connection: 'ads',
              operating_account_id: '123-456-7890',
              user_list_id: '5550001',
            },
          }),
          'vip-meta': spec({ meta_audience: { connection: 'aud', audience_id: '777' } }),
          'crm-hook': spec({ webhook: { connection: 'ads' } }),
        }),
      secret: async (name) => secrets[name],
      send: createHttpSender(),
      accessToken,
      ...o,
    };
    return { erase: createPlatformErasure(d), asked };
  }

  /** Adds the person to the Customer Match list as the sync would. */
  async function addToList(): Promise<void> {
    const [req] = customerMatchRequests(
      { origin: ads.url, operatingAccountId: '1234567890', userListId: '5550001', termsAccepted: true },
      [{ op: 'upsert', data: { email: PERSON.emails[0], phone: PERSON.phones[0] } }],
    ).requests;
    const token = await realTokens(standInCredentials(ads.url), DATA_MANAGER_SCOPE, false);
    const res = await fetch(req?.path ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(req?.body),
    });
    assert.equal(res.status, 200);
  }

  it('asks GA4, the Customer Match list and the Meta audience; each takes it; Meta CAPI is unsupported', async () => {
    await addToList();
    assert.equal(ads.members('5550001').length, 2);
    const since = { ga4: ga4.received.length, ads: ads.received.length, meta: meta.received.length };
    const { erase, asked } = deps();
    const notices = await erase(PERSON);

    assert.deepEqual(
      notices.map((n) => [n.platform, n.target, n.status]),
      [
        // By the user id, the anonymous id, the _ga id the gateway derives from it, the user id's stand-in.
        ['ga4_mp', 'ga', 'sent'],
        ['ga4_mp', 'ga', 'sent'],
        ['ga4_mp', 'ga', 'sent'],
        ['ga4_mp', 'ga', 'sent'],
        ['google_ads_audience', 'vip-ads', 'sent'],
        ['meta_audience', 'vip-meta', 'sent'],
        ['meta_capi', 'fb', 'unsupported'],
        // A webhook sync: named in the audit, the business's own system to erase the person in (#75).
        ['webhook', 'crm-hook', 'unsupported'],
      ],
    );
    assert.match(
      notices[7]?.detail ?? '',
      /posted the person's rows to connection ads .*erase the person there/,
    );
    for (const n of notices.slice(0, 4))
      assert.match(n.detail, /deletion: deletionRequestTime \d{4}-\d\d-\d\dT/);
    assert.match(notices[4]?.detail ?? '', /^removal of 2 identifier\(s\): requestId \S+$/);
    assert.match(notices[5]?.detail ?? '', /^removal of 2 identifier\(s\): num_received 2$/);
    assert.match(notices[6]?.detail ?? '', /no API to delete/);
    for (const n of notices) assert.ok(!Number.isNaN(Date.parse(n.at)), n.at);

    // GA4: one valid submitUserDeletion per id, with the function's own token.
    const deletions = ga4.received.slice(since.ga4);
    assert.deepEqual(
      deletions.map((r) => [r.method, r.path, r.status, r.problems]),
      Array(4).fill(['POST', '/v1alpha/properties/123456:submitUserDeletion', 200, []]),
    );
    assert.deepEqual(
      deletions.map((r) => Object.keys(r.body as object)),
      [['userId'], ['clientId'], ['clientId'], ['clientId']],
    );
    // Customer Match: the list no longer holds the person.
    assert.deepEqual(ads.members('5550001'), []);
    assert.deepEqual(
      ads.received
        .slice(since.ads)
        .filter((r) => r.path.startsWith('/v1/'))
        .map((r) => [r.path, r.problems]),
      [['/v1/audienceMembers:remove', []]],
    );
    // Meta: one DELETE, valid, with the token in the URL.
    const users = meta.received.slice(since.meta);
    assert.deepEqual(
      users.map((r) => [r.method, r.status, r.problems, r.query['access_token']]),
      [['DELETE', 200, [], META_TOKEN]],
    );
    assert.match(users[0]?.path ?? '', /^\/v\d+\.\d+\/777\/users$/);

    assert.deepEqual([...new Set(asked.map((a) => `${a.credentials}|${a.scope}|${a.fresh}`))].sort(), [
      `ADS_CREDS|${DATA_MANAGER_SCOPE}|false`,
      `|${GA4_USER_DELETION_SCOPE}|false`,
    ]);
    const text = JSON.stringify(notices);
    for (const name of NAMES) assert.ok(!text.includes(name), `a notice names ${name}`);
  });

  it('a refusal is failed with the status and Google’s message; the other platforms are still asked', async () => {
    ga4.failNext(
      googleError(403, 'PERMISSION_DENIED', 'User does not have sufficient permissions for this property.'),
    );
    const notices = await deps().erase(PERSON);
    const failed = notices.filter((n) => n.status === 'failed');
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.platform, 'ga4_mp');
    assert.equal(
      failed[0]?.detail,
      'user id deletion: HTTP 403 PERMISSION_DENIED: User does not have sufficient permissions for this property.',
    );
    assert.equal(notices.filter((n) => n.status === 'sent').length, 5);
  });

  it('asks only the audience syncs whose state holds the person, with every identifier the member was added with (#75)', async () => {
    await addToList();
    assert.equal(ads.members('5550001').length, 2);
    const since = { ads: ads.received.length, meta: meta.received.length };
    // The person named by e-mail only; the list's member was added with e-mail and phone.
    const byEmail = { ...PERSON, phones: [] };
    const adsSpec = spec({
      google_ads_audience: {
        connection: 'ads',
        operating_account_id: '123-456-7890',
        user_list_id: '5550001',
      },
    });
    const kept = [
      ...keptMembers(adsSpec, [
        { n: 0, op: 'upsert', key: {}, data: { email: PERSON.emails[0], phone: PERSON.phones[0] } },
      ]).values(),
    ];
    const looked: { sync: string; hashes: readonly string[] }[] = [];
    const notices = await deps({
      heldMembers: async (sync, hashes) => {
        looked.push({ sync, hashes });
        // The Customer Match list's state holds the person; the Meta audience's never did.
        return sync === 'vip-ads' && hashes.some((h) => kept[0]?.includes(h)) ? kept : [];
      },
    }).erase(byEmail);
    assert.deepEqual(looked.map((l) => l.sync).sort(), ['vip-ads', 'vip-meta']);
    assert.deepEqual(
      notices.filter((n) => n.platform.endsWith('_audience')).map((n) => [n.target, n.status]),
      [['vip-ads', 'sent']],
    );
    assert.equal(
      meta.received.length,
      since.meta,
      'the audience that never held the person is not told of them',
    );
    assert.deepEqual(ads.members('5550001'), [], 'the phone the request did not name is removed too');
  });

  it('a retry asks only the targets that failed, and leaves the unsupported ones out (#75)', async () => {
    const since = { ga4: ga4.received.length, ads: ads.received.length, meta: meta.received.length };
    const notices = await deps().erase(PERSON, new Set(['meta_audience vip-meta']));
    assert.deepEqual(
      notices.map((n) => [n.platform, n.target, n.status]),
      [['meta_audience', 'vip-meta', 'sent']],
    );
    assert.equal(ga4.received.length, since.ga4, 'GA4 not asked again');
    assert.equal(ads.received.length, since.ads, 'Customer Match not asked again');
    assert.equal(meta.received.length, since.meta + 1);
  });

  it('a Meta refusal is failed with Meta’s message', async () => {
    const notices = await deps({
      secret: async (name) => (name === 'META_AUD' ? 'wrong' : standInCredentials(ads.url)),
    }).erase(PERSON);
    const m = notices.find((n) => n.platform === 'meta_audience');
    assert.equal(m?.status, 'failed');
    assert.match(
      m?.detail ?? '',
      /^removal of 2 identifier\(s\): HTTP 400: Meta: Invalid OAuth access token/,
    );
  });

  it('a 401 gets one fresh token and one more call', async () => {
    const { erase, asked } = deps();
    ga4.failNext(googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'));
    const notices = await erase({ emails: [], phones: [], userIds: ['u-7'], anonymousIds: [] });
    assert.deepEqual(
      notices.filter((n) => n.platform === 'ga4_mp').map((n) => n.status),
      ['sent', 'sent'],
    );
    assert.equal(asked.filter((a) => a.scope === GA4_USER_DELETION_SCOPE && a.fresh).length, 1);
  });

  it('a network error, a missing secret, no token source and an unreadable registry are failed notices, never a rejection', async () => {
    const closed = await startGa4Receiver();
    await closed.close();
    const unreachable = {
      name: 'shop',
      project: 'shop-project',
      region: 'europe-west1',
      destinations: [{ id: 'ga', type: 'ga4_mp', user_deletion: { property: '1', url: closed.url } }],
      connections: [{ id: 'aud', type: 'meta_audience', url: meta.url, secrets: { access_token: 'GONE' } }],
    } as Settings;
    const notices = await createPlatformErasure({
      settings: unreachable,
      syncs: async () =>
        snapshot({ 'vip-meta': spec({ meta_audience: { connection: 'aud', audience_id: '777' } }) }),
      secret: async () => undefined,
      send: createHttpSender(),
      accessToken: async () => OWN_TOKEN,
    })(PERSON);
    assert.deepEqual(
      notices.map((n) => [n.platform, n.status]),
      [
        ['ga4_mp', 'failed'],
        ['ga4_mp', 'failed'],
        ['ga4_mp', 'failed'],
        ['ga4_mp', 'failed'],
        ['meta_audience', 'failed'],
      ],
    );
    assert.match(notices[0]?.detail ?? '', /network error/);
    assert.match(notices[4]?.detail ?? '', /secret GONE has no value/);

    const noTokens = await createPlatformErasure({
      settings: unreachable,
      syncs: async () => {
        throw new Error('registry unavailable');
      },
      secret: async () => undefined,
      send: createHttpSender(),
    })(PERSON);
    assert.deepEqual(
      noTokens.map((n) => [n.platform, n.status]),
      [
        ['ga4_mp', 'failed'],
        ['ga4_mp', 'failed'],
        ['ga4_mp', 'failed'],
        ['ga4_mp', 'failed'],
        ['syncs', 'failed'],
      ],
    );
    assert.match(noTokens[0]?.detail ?? '', /no OAuth token source/);
    assert.match(noTokens[4]?.detail ?? '', /registry unavailable/);
  });
});

describe('GA4 stand-in: the Admin API’s user deletion is checked as documented', () => {
  let ga4: PlatformReceiver;
  before(async () => {
    ga4 = await startGa4Receiver({ accessToken: OWN_TOKEN });
  });
  after(() => ga4.close());

  const post = async (path: string, body: unknown, token: string | null) => {
    const res = await fetch(`${ga4.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { error?: { status: string } } };
  };
  const OK = '/v1alpha/properties/42:submitUserDeletion';

  it('answers a valid request with the time it was received', async () => {
    const res = await post(OK, { clientId: '1.2' }, OWN_TOKEN);
    assert.equal(res.status, 200);
    assert.match(
      String((res.body as { deletionRequestTime?: string }).deletionRequestTime),
      /^\d{4}-\d\d-\d\dT/,
    );
  });

  it('refuses no token or a wrong one (401), a non-numeric property, no id, two ids, an empty or unknown field (400)', async () => {
    const cases: [string, unknown, string | null, number, string][] = [
      [OK, { userId: 'u' }, null, 401, 'UNAUTHENTICATED'],
      [OK, { userId: 'u' }, 'other', 401, 'UNAUTHENTICATED'],
      ['/v1alpha/properties/G-1:submitUserDeletion', { userId: 'u' }, OWN_TOKEN, 400, 'INVALID_ARGUMENT'],
      [OK, {}, OWN_TOKEN, 400, 'INVALID_ARGUMENT'],
      [OK, { userId: 'u', clientId: 'c' }, OWN_TOKEN, 400, 'INVALID_ARGUMENT'],
      [OK, { userId: '' }, OWN_TOKEN, 400, 'INVALID_ARGUMENT'],
      [OK, { id: { type: 'USER_ID', userId: 'u' } }, OWN_TOKEN, 400, 'INVALID_ARGUMENT'],
    ];
    for (const [path, body, token, status, code] of cases) {
      const res = await post(path, body, token);
      assert.deepEqual([res.status, res.body.error?.status], [status, code], JSON.stringify(body));
    }
  });
});
