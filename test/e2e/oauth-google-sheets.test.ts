/**
 * An OAuth catalogue destination end to end (issue #78): Segment's google-sheets destination,
 * configured in settings with an `oauth2` connection whose client id, client secret and refresh
 * token are secrets (the values `npm start` seeds into the Secret Manager emulator, registered here
 * as a client of the local OAuth stand-in), delivers a purchase through the real pipeline (gateway →
 * store → forward-catalog → Segment's postSheet → the Google Sheets stand-in). The stand-in expires
 * the first access token it issues, so the Sheets API answers it 401 and the runtime refreshes it
 * with Segment's own refreshAccessToken and repeats the call: one delivery, one `delivered` row.
 */
import assert from 'node:assert/strict';
import type { BigQuery } from '@google-cloud/bigquery';
import type { CapturedRequest } from '../../local/platforms/capture.ts';
import { SPREADSHEETS_PATH } from '../../local/platforms/google-sheets.ts';
import { CLIENTS_PATH } from '../../local/platforms/oauth.ts';
import { CAPTURE_PREFIX } from '../../local/services.ts';
import { googleSheetsDestination } from '../support/google-sheets.ts';
import {
  localBigQuery,
  localSecret,
  localSettingsWith,
  publishEvent,
  type StartedLocal,
  startLocalCli,
  stopLocalCli,
} from '../support/local-start.ts';
import { until } from '../support/until.ts';

const SPREADSHEET = 'orders-book';
const SECRETS = {
  client_id: 'GSHEETS_CLIENT_ID',
  client_secret: 'GSHEETS_CLIENT_SECRET',
  refresh_token: 'GSHEETS_REFRESH_TOKEN',
} as const;

/** The destination (JSON is YAML) appended to environments/local.yaml's destinations, and its connection. */
const SETTINGS = [
  `  - ${JSON.stringify(
    googleSheetsDestination(SPREADSHEET, 'google', {
      events: { allow: ['purchase'] },
      retry: { minimum_backoff: '1s', maximum_backoff: '5s', max_attempts: 10 },
    }),
  )}`,
  'connections:',
  `  - ${JSON.stringify({ id: 'google', type: 'oauth2', secrets: SECRETS })}`,
  '',
].join('\n');

describe('end to end: Google Sheets (an OAuth destination) with a refresh token against the local OAuth stand-in', function () {
  this.timeout(240000);
  let local: StartedLocal | undefined;
  let bigquery: BigQuery;
  const eventId = `gs${Date.now().toString(36)}`;
  const capture = () => `http://127.0.0.1:${local?.ports['receiver']}/${CAPTURE_PREFIX}`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${capture()}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 204, await res.text());
  };
  const captured = async (host: string): Promise<CapturedRequest[]> => {
    const res = await fetch(`${capture()}/_standin/requests?host=${host}`);
    return ((await res.json()) as { requests: CapturedRequest[] }).requests;
  };

  before(async () => {
    local = await startLocalCli({
      prefix: 'eventbus-oauth-',
      settings: localSettingsWith('oauth.yaml', SETTINGS),
    });
    bigquery = await localBigQuery(local.ports);
    const ports = local.ports;
    // The client the connection's secrets name, as its provider would know it; its first token expires at once.
    await post(CLIENTS_PATH, {
      client_id: await localSecret(ports, SECRETS.client_id),
      client_secret: await localSecret(ports, SECRETS.client_secret),
      refresh_token: await localSecret(ports, SECRETS.refresh_token),
      expire_first_token: true,
    });
    await post(SPREADSHEETS_PATH, { id: SPREADSHEET });
    await publishEvent(local, 'purchase', {
      event_id: eventId,
      event_time: new Date(Date.now() - 60_000).toISOString(),
      user_id: `${eventId}-u`,
      consent: { analytics: 'granted' },
      transaction_id: `${eventId}-order`,
      value: 42,
      currency: 'EUR',
    });
  });
  after(() => (local ? stopLocalCli(local) : undefined));

  it('delivers the purchase once, refreshing the expired access token', async () => {
    const sql = `SELECT status, reason FROM \`local-project.events.deliveries\` WHERE destination = 'sheets' AND event_id = '${eventId}'`;
    const rows = await until(
      'the sheets row of the purchase',
      async () => {
        const got = (await bigquery.query({ query: sql }))[0] as { status: string; reason: string | null }[];
        return got.some((r) => r.status !== 'failed') ? got : undefined;
      },
      120000,
    );
    assert.deepEqual(
      rows.map((r) => r.status),
      ['delivered'],
      JSON.stringify(rows),
    );
    // The row in the sheet: the header Segment's action writes, then the order.
    const res = await fetch(`${capture()}${SPREADSHEETS_PATH}/${SPREADSHEET}`);
    const { sheets } = (await res.json()) as { sheets: Record<string, string[][]> };
    assert.deepEqual(sheets['Sheet1'], [
      ['id', 'order', 'total'],
      [eventId, `${eventId}-order`, '42'],
    ]);
    // Two token requests (the first token, then the refresh after the 401), both refresh_token grants.
    const tokens = await captured('www.googleapis.com');
    assert.deepEqual(
      tokens.map((t) => `${t.method} ${t.path} ${t.status} ${new URLSearchParams(t.raw).get('grant_type')}`),
      ['POST /oauth2/v4/token 200 refresh_token', 'POST /oauth2/v4/token 200 refresh_token'],
    );
    const api = await captured('sheets.googleapis.com');
    assert.deepEqual(
      api.map((q) => `${q.method} ${decodeURIComponent(q.path)} ${q.status}`),
      [
        `GET /v4/spreadsheets/${SPREADSHEET}/values/Sheet1!A2:A 401`,
        `GET /v4/spreadsheets/${SPREADSHEET}/values/Sheet1!A2:A 200`,
        `POST /v4/spreadsheets/${SPREADSHEET}/values:batchUpdate 200`,
        `POST /v4/spreadsheets/${SPREADSHEET}/values/Sheet1!A2:append 200`,
      ],
    );
  });
});
