/**
 * A sync to a Google Ads Customer Match list (destination `google_ads_audience`): the schedule
 * function's sync job sends each page of changes to the Data Manager stand-in over real HTTP,
 * with an OAuth token from the connection's credentials (google-auth-library), so the list is
 * added to, kept and removed from as the model says (mirror); an expired token is replaced once;
 * a refused page fails its rows with Google's reason. A connection without a `credentials` secret
 * asks the token source for the schedule function's own identity (empty credentials, the Data
 * Manager scope) and reads no secret. The warehouse side is faked: the pages are change rows as an
 * earlier version's plan wrote them (key and row; a removal computes the identifiers from the row),
 * which a run under way at an upgrade still sends; the current plan's rows are
 * test/scheduler/sync-state-privacy.test.ts's.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { AccessTokens } from '../../adapters/google-oauth.ts';
import { createHttpSender } from '../../adapters/http-sender.ts';
import type { Snapshot } from '../../adapters/registry.ts';
import { DATA_MANAGER_SCOPE } from '../../core/platforms/google-ads/driver.ts';
import {
  describeRequestStatus,
  readRequestStatus,
  requestStatusUrl,
} from '../../core/platforms/google-ads/request-status.ts';
import { previewSyncPage } from '../../core/syncs/sync-preview.ts';
import { syncViolations } from '../../core/syncs/syncs.ts';
import { syncJob } from '../../functions/schedule/syncs.ts';
import {
  type GoogleAdsReceiver,
  standInCredentials,
  startGoogleAdsReceiver,
} from '../../local/platforms/index.ts';
import type { Connection, Settings } from '../../schemas/settings.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import { loopbackTokens } from '../support/loopback-tokens.ts';

const sha = (s: string) => JSON.stringify({ emailAddress: createHash('sha256').update(s).digest('hex') });

describe('sync to a Google Ads Customer Match list (schedule function, Data Manager stand-in)', () => {
  let standIn: GoogleAdsReceiver;
  // One token source for every page, as one function instance has.
  const accessToken = loopbackTokens();
  before(async () => {
    standIn = await startGoogleAdsReceiver();
  });
  after(() => standIn.close());

  /**
   * Runs one page of `changes` through the sync job; the rows it wrote to sync_failed_rows and the
   * secrets it read. `connection` and `accessToken` replace the keyed connection to the shared
   * stand-in and the real token source.
   */
  async function page(
    changes: { op: 'upsert' | 'delete'; email: string }[],
    o: { terms?: boolean; connection?: Connection; accessToken?: AccessTokens } = {},
  ) {
    const terms = o.terms ?? true;
    const spec: SyncSpec = {
      model: 'SELECT email FROM crm.vip',
      primary_key: ['email'],
      mode: 'mirror',
      schedule: { manual: true },
      destination: {
        google_ads_audience: {
          connection: 'ads',
          operating_account_id: '123-456-7890',
          user_list_id: '5550001',
          ...(terms ? { terms_of_service: 'accepted' } : {}),
        },
      },
    } as SyncSpec;
    const settings = {
      name: 'shop',
      project: 'shop-project',
      region: 'europe-west1',
      connections: [
        o.connection ?? {
          id: 'ads',
          type: 'google_ads_audience',
          url: standIn.url,
          secrets: { credentials: 'ADS_CREDS' },
        },
      ],
    } as Settings;
    const secretsRead: string[] = [];
    const failedRows: Record<string, unknown>[] = [];
    const runs: Record<string, unknown>[] = [];
    const snapshot = {
      resources: new Map([['vip', { name: 'vip', version: '1', spec }]]),
    } as unknown as Snapshot;
    const job = syncJob({
      settings,
      ops: 'ops',
      syncs: async () => snapshot,
      secret: async (name) => {
        secretsRead.push(name);
        return name === 'ADS_CREDS' ? standInCredentials(standIn.url) : undefined;
      },
      send: createHttpSender(),
      accessToken: o.accessToken ?? accessToken,
      assertSelect: async () => {},
      run: async () => [],
      page: async (_table, start) =>
        start > 0
          ? []
          : changes.map((c, n) => ({
              __n: n,
              __op: c.op,
              __key: JSON.stringify({ email: c.email }),
              __row: JSON.stringify({ email: c.email }),
            })),
      writeFile: async () => 'created',
      publish: async () => undefined,
      writeRun: async (row) => {
        runs.push(row as Record<string, unknown>);
      },
      writeFailedRows: async (rows) => {
        failedRows.push(...rows.map((r) => r.row));
      },
    });
    const result = await job.chunk({
      run: { kind: 'Sync', name: 'vip', slot: 'manual', trigger: 'manual' },
      runId: `run-${Math.random()}`,
      cursor: {
        planned: changes.length,
        removals: 0,
        done: 0,
        pages: 0,
        sent: 0,
        removed: 0,
        started_at: new Date().toISOString(),
      },
      chunk: 1,
      now: new Date(),
      fence: async () => {},
    } as never);
    return { result, failedRows, runs, secretsRead };
  }

  it('adds, keeps and removes members as the model says', async () => {
    const first = await page([
      { op: 'upsert', email: 'A@example.com' },
      { op: 'upsert', email: 'b@example.com' },
    ]);
    assert.deepEqual(first.failedRows, []);
    assert.equal(first.result.done, true);
    assert.deepEqual(standIn.members('5550001'), [sha('a@example.com'), sha('b@example.com')].sort());
    // a is unchanged (not in the diff), b left the model, c joined it.
    await page([
      { op: 'delete', email: 'b@example.com' },
      { op: 'upsert', email: 'c@example.com' },
    ]);
    assert.deepEqual(standIn.members('5550001'), [sha('a@example.com'), sha('c@example.com')].sort());
    assert.deepEqual(
      standIn.received.map((r) => r.path),
      ['/token', '/v1/audienceMembers:ingest', '/v1/audienceMembers:ingest', '/v1/audienceMembers:remove'],
    );
  });

  it('keeps each accepted request’s id in the run row, and the stand-in reports each SUCCESS', async () => {
    const { runs } = await page([
      { op: 'upsert', email: 'r@example.com' },
      { op: 'delete', email: 'r@example.com' },
    ]);
    const ids = String(runs[0]?.['request_ids'] ?? '').split(' ');
    const answered = standIn.received
      .filter((r) => r.path.startsWith('/v1/audienceMembers'))
      .slice(-2)
      .map((r) => (r.response as { requestId: string }).requestId);
    assert.deepEqual(ids, answered);
    const token = await accessToken(standInCredentials(standIn.url), DATA_MANAGER_SCOPE, false);
    for (const id of ids) {
      const res = await fetch(requestStatusUrl(id, standIn.url), {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(describeRequestStatus(readRequestStatus(await res.json())), '5550001 SUCCESS');
    }
    const unknown = await fetch(requestStatusUrl('nope', standIn.url), {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(unknown.status, 404);
  });

  it('says the Customer Match terms were accepted on each upload, only when the sync says so', async () => {
    const before = standIn.received.length;
    await page([
      { op: 'upsert', email: 'g@example.com' },
      { op: 'delete', email: 'g@example.com' },
    ]);
    const bodies = standIn.received.slice(before).filter((r) => r.path.startsWith('/v1/'));
    assert.deepEqual(
      bodies.map((r) => [r.path, (r.body as { termsOfService?: unknown }).termsOfService]),
      [
        ['/v1/audienceMembers:ingest', { customerMatchTermsOfServiceStatus: 'ACCEPTED' }],
        ['/v1/audienceMembers:remove', undefined],
      ],
    );
    // Without `terms_of_service: accepted`, Google refuses the upload: the rows fail saying why.
    const { failedRows } = await page([{ op: 'upsert', email: 'h@example.com' }], { terms: false });
    assert.equal(failedRows.length, 1);
    assert.match(
      String(failedRows[0]?.['reason']),
      /INVALID_ARGUMENT \(400\).*termsOfService\.customerMatchTermsOfServiceStatus: the Customer Match terms of service must be ACCEPTED/,
    );
    assert.ok(!standIn.members('5550001').includes(sha('h@example.com')));
  });

  it('an expired token is replaced once and the page sent again', async () => {
    await page([{ op: 'upsert', email: 'd@example.com' }]);
    standIn.expireTokens();
    const before = standIn.received.length;
    const { failedRows } = await page([{ op: 'upsert', email: 'e@example.com' }]);
    assert.deepEqual(failedRows, []);
    assert.ok(standIn.members('5550001').includes(sha('e@example.com')));
    assert.deepEqual(
      standIn.received.slice(before).map((r) => [r.path, r.status]),
      [
        ['/v1/audienceMembers:ingest', 401],
        ['/token', 200],
        ['/v1/audienceMembers:ingest', 200],
      ],
    );
  });

  it('a connection without credentials calls as the schedule function’s own account: empty credentials, the Data Manager scope, no secret read', async () => {
    // The stand-in takes only the token the function's own identity would get (its metadata
    // server on Google Cloud, test/delivery/google-oauth-adc.test.ts).
    const own = await startGoogleAdsReceiver({ accessToken: 'ya29.schedule-own' });
    try {
      const asked: { credentials: string; scope: string; fresh: boolean }[] = [];
      const ownTokens: AccessTokens = async (credentials, scope, fresh) => {
        asked.push({ credentials, scope, fresh });
        return 'ya29.schedule-own';
      };
      const { failedRows, secretsRead } = await page([{ op: 'upsert', email: 'k@example.com' }], {
        connection: { id: 'ads', type: 'google_ads_audience', url: own.url },
        accessToken: ownTokens,
      });
      assert.deepEqual(failedRows, []);
      assert.deepEqual(secretsRead, []);
      assert.deepEqual(asked, [{ credentials: '', scope: DATA_MANAGER_SCOPE, fresh: false }]);
      assert.deepEqual(own.members('5550001'), [sha('k@example.com')]);
      assert.deepEqual(
        own.received.map((r) => [r.path, r.status]),
        [['/v1/audienceMembers:ingest', 200]],
      );
    } finally {
      await own.close();
    }
  });

  it('a named credentials secret with no value fails the chunk (retried), never falling back to the own account', async () => {
    const before = standIn.received.length;
    const asked: string[] = [];
    await assert.rejects(
      page([{ op: 'upsert', email: 'm@example.com' }], {
        connection: {
          id: 'ads',
          type: 'google_ads_audience',
          url: standIn.url,
          secrets: { credentials: 'UNSET' },
        },
        accessToken: async (credentials) => {
          asked.push(credentials);
          return 'never';
        },
      }),
      /connection ads has no credentials secret with a value/,
    );
    assert.deepEqual(asked, []);
    assert.equal(standIn.received.length, before);
  });

  it("a refused page fails its rows with Google's reason; the run goes on", async () => {
    standIn.failNext({
      status: 400,
      body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'User list not found.' } },
    });
    const { failedRows } = await page([{ op: 'upsert', email: 'f@example.com' }]);
    assert.deepEqual(
      failedRows.map((r) => [r['op'], r['reason']]),
      [['upsert', 'google ads INVALID_ARGUMENT (400): User list not found.']],
    );
  });

  it('the spec check wants a google_ads_audience connection; the dry run prints the requests, the token redacted', () => {
    const destination = {
      google_ads_audience: {
        connection: 'ads',
        operating_account_id: '1234567890',
        user_list_id: '5550001',
        terms_of_service: 'accepted',
      },
    };
    const spec = {
      model: 'SELECT email FROM crm.vip',
      primary_key: ['email'],
      mode: 'mirror',
      schedule: { manual: true },
      destination,
    };
    const meta = [{ id: 'ads', type: 'meta_audience' as const }];
    assert.deepEqual(
      syncViolations(spec, 'spec', meta).map((v) => `${v.field}: ${v.description}`),
      [
        'spec.destination.google_ads_audience.connection: "ads" is a meta_audience connection, not google_ads_audience',
      ],
    );
    const connections = [
      { id: 'ads', type: 'google_ads_audience' as const, secrets: { credentials: 'ADS_CREDS' } },
    ];
    assert.deepEqual(syncViolations(spec, 'spec', connections), []);
    // Without a credentials secret too: the schedule function's own account calls.
    assert.deepEqual(syncViolations(spec, 'spec', [{ id: 'ads', type: 'google_ads_audience' as const }]), []);
    const preview = previewSyncPage({
      sync: { name: 'vip', version: '1', spec: spec as SyncSpec },
      connections,
      runKey: 'dry',
      slot: 'manual',
      planned: 1,
      changes: [{ n: 1, op: 'upsert', key: { email: 'a@example.com' }, data: { email: 'a@example.com' } }],
    });
    assert.deepEqual(
      preview.requests.map((r) => [r.title, r.headers?.['authorization']]),
      [['POST https://datamanager.googleapis.com/v1/audienceMembers:ingest', 'Bearer REDACTED']],
    );
  });
});
