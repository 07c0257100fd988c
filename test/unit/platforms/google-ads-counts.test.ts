/**
 * Google Ads' counting read (core/platforms/google-ads/counts.ts): the GAQL request on
 * `offline_conversion_upload_conversion_action_summary` it builds, how it reads SearchStream's
 * answer, and the same read against the Google Ads stand-in over HTTP, which counts what the
 * uploads it took kept (less a configured shortfall) and refuses a query Google would refuse.
 */
import assert from 'node:assert/strict';
import { countsSecretRoles } from '../../../core/platforms/counts.ts';
import {
  ADWORDS_SCOPE,
  GOOGLE_ADS_COUNTS,
  uploadSummaryQuery,
} from '../../../core/platforms/google-ads/counts.ts';
import { DATA_MANAGER_SCOPE } from '../../../core/platforms/google-ads/driver.ts';
import { googleAdsDriver } from '../../../core/platforms/google-ads/index.ts';
import {
  type GoogleAdsReceiver,
  standInCredentials,
  startGoogleAdsReceiver,
} from '../../../local/platforms/index.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { loopbackTokens } from '../../support/loopback-tokens.ts';
import { storedEvent } from '../linkage/sample-events.ts';

const destination = (base_url?: string): Destination =>
  ({
    id: 'ads',
    type: 'google_ads',
    ...(base_url ? { base_url } : {}),
    config: { operating_account_id: '123-456-7890', login_account_id: '999-888-7777', counts: true },
    secrets: { credentials: 'ADS_CREDENTIALS', developer_token: 'ADS_DEV_TOKEN' },
    mappings: { purchase: { event: '111' }, lead: { event: '222' }, page: { event: 'x' } },
  }) as unknown as Destination;

describe('Google Ads counts: the upload summaries, per conversion action and day', () => {
  it('asks SearchStream for the mapped conversion actions with the developer token and login customer', () => {
    const r = GOOGLE_ADS_COUNTS.request(destination(), '2026-03-02', 'ya29', { developer_token: 'dev' });
    assert.equal(r.url, 'https://googleads.googleapis.com/v26/customers/1234567890/googleAds:searchStream');
    assert.deepEqual(r.headers, {
      authorization: 'Bearer ya29',
      'developer-token': 'dev',
      'login-customer-id': '9998887777',
      'content-type': 'application/json',
    });
    assert.deepEqual(JSON.parse(r.body ?? ''), { query: uploadSummaryQuery(['111', '222']) });
    assert.match(
      uploadSummaryQuery(['111']),
      /^SELECT offline_conversion_upload_conversion_action_summary\.conversion_action_id, .*daily_summaries FROM offline_conversion_upload_conversion_action_summary WHERE .*conversion_action_id IN \(111\)$/,
    );
    assert.deepEqual(GOOGLE_ADS_COUNTS.auth, {
      kind: 'google_oauth',
      scope: ADWORDS_SCOPE,
      role: 'credentials',
    });
  });

  it('reads the day’s successful uploads per conversion action, clients added up', () => {
    const row = (id: string, daily: unknown[]) => ({
      offlineConversionUploadConversionActionSummary: { conversionActionId: id, dailySummaries: daily },
    });
    const body = [
      {
        results: [
          row('111', [
            { successfulCount: '7', failedCount: '1', uploadDate: '2026-03-02' },
            { successfulCount: '4', uploadDate: '2026-03-01' },
          ]),
          // The same action uploaded by another client.
          row('111', [{ successfulCount: '2', uploadDate: '2026-03-02' }]),
          // Proto3 JSON leaves a zero out: a day of only failures counted nothing.
          row('222', [{ failedCount: '3', uploadDate: '2026-03-02' }]),
        ],
        fieldMask: 'offlineConversionUploadConversionActionSummary.conversionActionId',
      },
      // A batch without results (no rows) is not a broken answer.
      { fieldMask: 'x', requestId: 'r' },
    ];
    assert.deepEqual(GOOGLE_ADS_COUNTS.read(body, '2026-03-02'), [
      { event_name: '111', counted: 9 },
      { event_name: '222', counted: 0 },
    ]);
    assert.deepEqual(GOOGLE_ADS_COUNTS.read([], '2026-03-02'), []);
    assert.equal(GOOGLE_ADS_COUNTS.read({ error: { message: 'no' } }, '2026-03-02'), undefined);
    assert.equal(GOOGLE_ADS_COUNTS.read([{ results: 'x' }], '2026-03-02'), undefined);
  });

  it('names what a destination lacks before asking, and the secrets the scheduler is granted', () => {
    const d = destination();
    assert.deepEqual(countsSecretRoles(d, GOOGLE_ADS_COUNTS), ['credentials', 'developer_token']);
    assert.equal(GOOGLE_ADS_COUNTS.problem(d), undefined);
    assert.match(
      String(GOOGLE_ADS_COUNTS.problem({ ...d, secrets: { credentials: 'C' } })),
      /developer_token/,
    );
    assert.match(String(GOOGLE_ADS_COUNTS.problem({ ...d, mappings: {} })), /conversion action id/);
  });

  describe('against the stand-in', () => {
    let standIn: GoogleAdsReceiver;
    let d: Destination;
    let credentials: string;
    const tokens = loopbackTokens();
    before(async () => {
      standIn = await startGoogleAdsReceiver({ countShortfall: 0.1 });
      d = destination(standIn.url);
      credentials = standInCredentials(standIn.url);
      // Ten purchases and two leads uploaded today.
      const ctx = {
        destination: d,
        secrets: { credentials, access_token: await tokens(credentials, DATA_MANAGER_SCOPE, false) },
        now: new Date(),
      };
      // Clicked and converted today: within every conversion window.
      const today = (name: string) => ({ ...storedEvent(name), event_time: new Date().toISOString() });
      const events = [...Array.from({ length: 10 }, () => today('purchase')), today('lead'), today('lead')];
      const batch = googleAdsDriver.prepareBatch?.(events, ctx);
      assert.ok(batch);
      for (const { request } of batch.requests) {
        const res = await fetch(request.url, {
          method: request.method,
          headers: request.headers,
          body: request.body,
        });
        assert.equal(res.status, 200, await res.text());
      }
    });
    after(() => standIn.close());

    const ask = async (token: string, headers: Record<string, string> = {}, query?: string) => {
      const r = GOOGLE_ADS_COUNTS.request(d, new Date().toISOString().slice(0, 10), token, {
        developer_token: 'dev',
      });
      const res = await fetch(r.url, {
        method: r.method,
        headers: { ...r.headers, ...headers },
        body: query === undefined ? (r.body ?? null) : JSON.stringify({ query }),
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };

    it('counts what the uploads kept, less the shortfall', async () => {
      const token = await tokens(credentials, ADWORDS_SCOPE, false);
      const { status, body } = await ask(token);
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(GOOGLE_ADS_COUNTS.read(body, new Date().toISOString().slice(0, 10)), [
        { event_name: '111', counted: 9 },
        { event_name: '222', counted: 2 },
      ]);
    });

    it('refuses, in Google Ads’ error envelope, what Google refuses', async () => {
      const token = await tokens(credentials, ADWORDS_SCOPE, false);
      const code = async (headers: Record<string, string>, query?: string) => {
        const { status, body } = await ask(token, headers, query);
        assert.equal(status, 400);
        const detail = (body as { error: { details: { errors: { errorCode: Record<string, string> }[] }[] } })
          .error.details[0];
        return detail?.errors[0]?.errorCode;
      };
      assert.deepEqual(await code({ 'developer-token': '' }), {
        requestError: 'DEVELOPER_TOKEN_PARAMETER_MISSING',
      });
      const r = 'offline_conversion_upload_conversion_action_summary';
      assert.deepEqual(await code({}, `SELECT ${r}.conversion_count FROM ${r}`), {
        queryError: 'BAD_FIELD_NAME',
      });
      assert.deepEqual(await code({}, `SELECT campaign.id FROM campaign`), {
        queryError: 'BAD_RESOURCE_TYPE_IN_FROM_CLAUSE',
      });
      assert.deepEqual(await code({}, `SELECT ${r}.client, campaign.id FROM ${r}`), {
        queryError: 'BAD_FIELD_NAME',
      });
      assert.deepEqual(await code({}, `SELECT ${r}.client FROM ${r}s`), {
        queryError: 'BAD_RESOURCE_TYPE_IN_FROM_CLAUSE',
      });
      assert.deepEqual(await code({}, `SELECT ${r}.client FROM ${r} WHERE ${r}.daily_summaries = 1`), {
        queryError: 'PROHIBITED_FIELD_IN_WHERE_CLAUSE',
      });
      assert.deepEqual(await code({}, `${r}.client`), { queryError: 'EXPECTED_SELECT' });
      // Another customer of the same credentials uploaded nothing: no rows.
      const elsewhere = GOOGLE_ADS_COUNTS.request(
        { ...d, config: { ...d.config, operating_account_id: '5555555555' } },
        new Date().toISOString().slice(0, 10),
        token,
        { developer_token: 'dev' },
      );
      const other = await fetch(elsewhere.url, {
        method: elsewhere.method,
        headers: elsewhere.headers ?? {},
        body: elsewhere.body ?? null,
      });
      assert.deepEqual(GOOGLE_ADS_COUNTS.read(await other.json(), new Date().toISOString().slice(0, 10)), []);
      const unauthenticated = await ask('not-a-token');
      assert.equal(unauthenticated.status, 401);
    });
  });
});
