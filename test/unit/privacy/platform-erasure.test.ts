/**
 * What an erasure asks of the platforms (core/privacy/platform-erasure.ts), as requests: GA4 user
 * deletions by user id and client id when the destination names its property (and `unsupported`
 * naming the setting when it does not), Customer Match and Meta audience removals whose
 * identifiers are hashed exactly as the syncs add them, files and webhook syncs named with what
 * the erasure leaves there, nothing for a topic sync,
 * and `unsupported` for every destination without a deletion API.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { pseudonymousId } from '../../../core/linkage/transforms.ts';
import { GA4_USER_DELETION_SCOPE, ga4DeletionBodies } from '../../../core/platforms/ga4/erasure.ts';
import { customerMatchRequests } from '../../../core/platforms/google-ads/audience.ts';
import { DATA_MANAGER_SCOPE } from '../../../core/platforms/google-ads/driver.ts';
import { audienceRequests } from '../../../core/platforms/meta/audience.ts';
import {
  type ErasedPerson,
  type NamedSync,
  platformErasure,
} from '../../../core/privacy/platform-erasure.ts';
import type { Settings } from '../../../schemas/settings.ts';
import type { SyncSpec } from '../../../schemas/sync.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

const PERSON: ErasedPerson = {
  emails: [' Ann.Lee+shop@GMail.com ', 'ann@example.com', 'ann@example.com'],
  phones: ['+33 6 12 34 56 78'],
  userIds: ['u-42'],
  anonymousIds: ['1234.5678', ''],
};

const settings = (extra: Partial<Settings> = {}): Settings =>
  ({
    name: 'shop',
    project: 'shop-project',
    region: 'europe-west1',
    connections: [
      {
        id: 'ads',
        type: 'google_ads_audience',
        url: 'http://ads.test',
        secrets: { credentials: 'ADS_CREDS' },
      },
      { id: 'fb', type: 'meta_audience', url: 'http://graph.test', secrets: { access_token: 'FB_TOKEN' } },
      { id: 'hook', type: 'webhook', url: 'http://hook.test' },
    ],
    ...extra,
  }) as Settings;

const sync = (name: string, destination: SyncSpec['destination']): NamedSync => ({
  name,
  spec: {
    model: 'SELECT email, phone FROM crm.vip',
    primary_key: ['email'],
    mode: 'mirror',
    schedule: { manual: true },
    destination,
  } as SyncSpec,
});

const CUSTOMER_MATCH = sync('vip-ads', {
  google_ads_audience: { connection: 'ads', operating_account_id: '123-456-7890', user_list_id: '5550001' },
});
const META = sync('vip-meta', { meta_audience: { connection: 'fb', audience_id: '777' } });

describe('platform erasure: GA4 user deletion', () => {
  const ga4 = (extra: Record<string, unknown> = {}) =>
    settings({
      destinations: [
        {
          id: 'ga',
          type: 'ga4_mp',
          config: { measurement_id: 'G-1' },
          secrets: { api_secret: 'S' },
          ...extra,
        },
      ],
    } as Partial<Settings>);

  it('asks by each user id and client id: the anonymous ids, the _ga id the gateway derives from each, and the one the mapping derives from a user id', () => {
    assert.deepEqual(ga4DeletionBodies(PERSON), [
      { userId: 'u-42' },
      { clientId: '1234.5678' },
      { clientId: pseudonymousId('1234.5678') },
      { clientId: pseudonymousId('u-42') },
    ]);
  });

  it('posts each to the property’s submitUserDeletion under the analytics.edit scope', () => {
    const out = platformErasure(ga4({ user_deletion: { property: '123456' } }), [], PERSON, 'k');
    assert.deepEqual(out.unsupported, []);
    assert.equal(out.requests.length, 4);
    for (const r of out.requests) {
      assert.equal(r.platform, 'ga4_mp');
      assert.equal(r.target, 'ga');
      assert.equal(r.request.method, 'POST');
      assert.equal(
        r.request.url,
        'https://analyticsadmin.googleapis.com/v1alpha/properties/123456:submitUserDeletion',
      );
      assert.deepEqual(r.request.auth, { kind: 'google_oauth', scope: GA4_USER_DELETION_SCOPE });
      assert.equal(Object.keys(r.request.body).length, 1, 'exactly one id of the user oneof');
    }
    assert.equal(GA4_USER_DELETION_SCOPE, 'https://www.googleapis.com/auth/analytics.edit');
  });

  it('sends to the setting’s url when it names one (a stand-in), never to the collection base_url', () => {
    const out = platformErasure(
      ga4({
        base_url: 'https://region1.google-analytics.com',
        user_deletion: { property: '9', url: 'http://127.0.0.1:1/' },
      }),
      [],
      PERSON,
      'k',
    );
    assert.equal(out.requests[0]?.request.url, 'http://127.0.0.1:1/v1alpha/properties/9:submitUserDeletion');
  });

  it('without user_deletion.property: unsupported, naming the setting, and no request', () => {
    const out = platformErasure(ga4(), [], PERSON, 'k');
    assert.deepEqual(out.requests, []);
    assert.equal(out.unsupported.length, 1);
    assert.equal(out.unsupported[0]?.platform, 'ga4_mp');
    assert.equal(out.unsupported[0]?.target, 'ga');
    assert.match(out.unsupported[0]?.reason ?? '', /user_deletion\.property/);
  });

  it('a person with no user id and no anonymous id asks GA4 nothing', () => {
    const out = platformErasure(
      ga4({ user_deletion: { property: '1' } }),
      [],
      { emails: ['a@b.c'], phones: [], userIds: [], anonymousIds: [] },
      'k',
    );
    assert.deepEqual(out, { requests: [], unsupported: [], blocked: [] });
  });
});

describe('platform erasure: destinations without a deletion API', () => {
  it('lists each with the reason, a webhook as the business’s own system', () => {
    const out = platformErasure(
      settings({
        destinations: [
          { id: 'fb', type: 'meta_capi', enabled: false },
          { id: 'tt', type: 'tiktok_events' },
          { id: 'own', type: 'webhook' },
        ],
      } as Partial<Settings>),
      [],
      PERSON,
      'k',
    );
    assert.deepEqual(out.requests, []);
    assert.deepEqual(
      out.unsupported.map((u) => [u.platform, u.target]),
      [
        ['meta_capi', 'fb'],
        ['tiktok_events', 'tt'],
        ['webhook', 'own'],
      ],
    );
    assert.match(out.unsupported[0]?.reason ?? '', /meta_capi offers no API to delete/);
    assert.match(out.unsupported[1]?.reason ?? '', /tiktok_events offers no API to delete/);
    assert.match(out.unsupported[2]?.reason ?? '', /business’s own system/);
  });
});

describe('platform erasure: audience syncs', () => {
  it('Customer Match: one :remove of a member per e-mail and phone, hashed as the sync adds them', () => {
    const out = platformErasure(settings(), [CUSTOMER_MATCH], PERSON, 'k');
    assert.equal(out.requests.length, 1);
    const r = out.requests[0];
    assert.equal(r?.platform, 'google_ads_audience');
    assert.equal(r?.target, 'vip-ads');
    assert.equal(r?.request.url, 'http://ads.test/v1/audienceMembers:remove');
    assert.deepEqual(r?.request.auth, {
      kind: 'google_oauth',
      scope: DATA_MANAGER_SCOPE,
      credentialsSecret: 'ADS_CREDS',
    });
    // What the sync's own upload of the same rows carries.
    const target = { origin: 'http://ads.test', operatingAccountId: '123-456-7890', userListId: '5550001' };
    const upload = customerMatchRequests(target, [
      { op: 'upsert', data: { email: PERSON.emails[0] } },
      { op: 'upsert', data: { email: 'ann@example.com' } },
      { op: 'upsert', data: { phone: PERSON.phones[0] } },
    ]).requests[0]?.body as { audienceMembers: { userData: unknown }[]; destinations: unknown };
    const body = r?.request.body as { audienceMembers: unknown[]; destinations: unknown; encoding: string };
    assert.deepEqual(
      body.audienceMembers,
      upload.audienceMembers.map((m) => ({ userData: m.userData })),
    );
    assert.deepEqual(body.destinations, upload.destinations);
    assert.equal(body.encoding, 'HEX');
    // And Google's rules by hand: gmail dots and +tag gone; E.164.
    assert.deepEqual(body.audienceMembers, [
      { userData: { userIdentifiers: [{ emailAddress: sha('annlee@gmail.com') }] } },
      { userData: { userIdentifiers: [{ emailAddress: sha('ann@example.com') }] } },
      { userData: { userIdentifiers: [{ phoneNumber: sha('+33612345678') }] } },
    ]);
    assert.ok(!JSON.stringify(body).includes('example.com'), 'no identifier in clear');
  });

  it('Meta: one DELETE of a row per e-mail and phone, hashed as the sync adds them, under the connection’s token', () => {
    const out = platformErasure(settings(), [META], PERSON, 'k');
    assert.equal(out.requests.length, 1);
    const r = out.requests[0];
    assert.equal(r?.platform, 'meta_audience');
    assert.equal(r?.target, 'vip-meta');
    assert.equal(r?.request.method, 'DELETE');
    assert.match(r?.request.url ?? '', /^http:\/\/graph\.test\/v\d+\.\d+\/777\/users$/);
    assert.deepEqual(r?.request.auth, { kind: 'meta_token', tokenSecret: 'FB_TOKEN' });
    const added = audienceRequests({
      audienceId: '777',
      runKey: 'run',
      page: 1,
      last: true,
      planned: 3,
      changes: [
        { op: 'upsert', data: { email: PERSON.emails[0] } },
        { op: 'upsert', data: { email: 'ann@example.com' } },
        { op: 'upsert', data: { phone: PERSON.phones[0] } },
      ],
    }).requests[0]?.body.payload;
    const body = r?.request.body as {
      payload: unknown;
      session: { batch_seq: number; last_batch_flag: boolean };
    };
    assert.deepEqual(body.payload, added);
    // Meta's rules by hand: trimmed and lower-case (no gmail rule); digits with the country code.
    assert.deepEqual(body.payload, {
      schema: ['EMAIL', 'PHONE'],
      data: [
        [sha('ann.lee+shop@gmail.com'), ''],
        [sha('ann@example.com'), ''],
        ['', sha('33612345678')],
      ],
    });
    assert.equal(body.session.batch_seq, 1);
    assert.equal(body.session.last_batch_flag, true);
  });

  it('a phone without its country code is left out and noted, never named', () => {
    const person = { emails: ['ann@example.com'], phones: ['0612345678'], userIds: [], anonymousIds: [] };
    const out = platformErasure(settings(), [CUSTOMER_MATCH, META], person, 'k');
    assert.equal(out.requests.length, 2);
    for (const r of out.requests) {
      assert.match(r.note ?? '', /1 identifier\(s\) \(phone\) not sent/);
      assert.ok(!(r.note ?? '').includes('0612345678'));
    }
  });

  it('files and webhook syncs are named with what the erasure leaves there; a topic sync gives nothing (#75)', () => {
    const out = platformErasure(
      settings({
        connections: [
          ...(settings().connections ?? []),
          { id: 'lake', type: 'storage', bucket: 'shop-exports' },
        ],
      } as Partial<Settings>),
      [
        sync('to-hook', { webhook: { connection: 'hook' } }),
        sync('to-files', { files: { connection: 'lake', format: 'csv' } }),
        sync('to-gone', { files: { connection: 'gone' } }),
        sync('to-topic', { topic: { event_name: 'crm_update' } }),
      ],
      PERSON,
      'k',
    );
    assert.deepEqual(out.requests, []);
    assert.deepEqual(out.blocked, []);
    assert.deepEqual(
      out.unsupported.map((g) => [g.platform, g.target]),
      [
        ['webhook', 'to-hook'],
        ['files', 'to-files'],
        ['files', 'to-gone'],
      ],
    );
    const [hook, files, gone] = out.unsupported.map((g) => g.reason);
    assert.match(
      hook ?? '',
      /posted the person's rows to connection hook \(hook\.test\).*erase the person there/,
    );
    // The folder, the files' shape and the command that deletes them.
    assert.match(
      files ?? '',
      /gs:\/\/shop-exports\/syncs\/to-files\/ \(a folder per run, dt=<day>\/run-<id>\/part-<n>\.csv\)/,
    );
    assert.match(files ?? '', /gcloud storage rm --recursive gs:\/\/shop-exports\/syncs\/to-files\/;/);
    assert.match(gone ?? '', /connection gone \(not in the settings\), under syncs\/to-gone\//);
    // The audit keeps no identifier in clear.
    for (const g of out.unsupported)
      for (const v of ['ann@example.com', 'Ann.Lee', '612345678', 'u-42', '1234.5678'])
        assert.ok(!g.reason.includes(v), `${g.target}: ${v}`);
  });

  it('a person with no e-mail and no phone asks no audience', () => {
    const out = platformErasure(
      settings(),
      [CUSTOMER_MATCH, META],
      { emails: [], phones: [], userIds: ['u'], anonymousIds: [] },
      'k',
    );
    assert.deepEqual(out.requests, []);
  });

  it('an audience whose connection is gone or has no token is blocked, with the reason', () => {
    const out = platformErasure(
      settings({ connections: [{ id: 'fb', type: 'meta_audience' }] } as Partial<Settings>),
      [CUSTOMER_MATCH, META],
      PERSON,
      'k',
    );
    assert.deepEqual(out.requests, []);
    assert.deepEqual(out.blocked, [
      { platform: 'google_ads_audience', target: 'vip-ads', reason: 'connection ads is not in the settings' },
      { platform: 'meta_audience', target: 'vip-meta', reason: 'connection fb has no access_token secret' },
    ]);
  });

  it('a Customer Match connection without credentials asks as the function’s own account', () => {
    const out = platformErasure(
      settings({ connections: [{ id: 'ads', type: 'google_ads_audience' }] } as Partial<Settings>),
      [CUSTOMER_MATCH],
      PERSON,
      'k',
    );
    assert.deepEqual(out.requests[0]?.request.auth, { kind: 'google_oauth', scope: DATA_MANAGER_SCOPE });
    assert.equal(
      out.requests[0]?.request.url,
      'https://datamanager.googleapis.com/v1/audienceMembers:remove',
    );
  });
});
