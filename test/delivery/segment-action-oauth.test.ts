/**
 * OAuth catalogue destinations (issue #78) through the runtime (adapters/segment-actions/run.ts)
 * against the local OAuth stand-in and the Google Sheets stand-in, both served by the capturing
 * stand-in on loopback (local/platforms/capture.ts): Segment's google-sheets `postSheet` action with
 * its credentials from an `oauth2` connection; the first access token obtained with Segment's own
 * `refreshAccessToken`; a token the API refuses (401) refreshed once and the call repeated;
 * deliveries in flight sharing one refresh; a refresh token the endpoint refuses (`invalid_grant`).
 */
import assert from 'node:assert/strict';
import { runSegmentAction } from '../../adapters/segment-actions/run.ts';
import type { StoredEvent } from '../../core/event.ts';
import { OAUTH_ROLES } from '../../core/platforms/segment-action/oauth.ts';
import { type CaptureReceiver, startCaptureReceiver } from '../../local/platforms/capture.ts';
import { SPREADSHEETS_PATH } from '../../local/platforms/google-sheets.ts';
import { CLIENTS_PATH } from '../../local/platforms/oauth.ts';
import type { Destination } from '../../schemas/settings.ts';
import { googleSheetsDestination } from '../support/google-sheets.ts';

const NOW = new Date('2026-11-25T12:00:00.000Z');
const TOKEN_HOST = 'www.googleapis.com';
const SHEETS_HOST = 'sheets.googleapis.com';

const purchase = (id: string): StoredEvent => ({
  event_name: 'purchase',
  event_id: id,
  event_time: '2026-11-25T11:00:00.000Z',
  user_id: `u-${id}`,
  event_data: { transaction_id: `order-${id}`, value: 42, currency: 'EUR' },
});

/** Segment's google-sheets destination sending to the stand-ins. */
const sheets = (receiver: CaptureReceiver, spreadsheet: string, connection = 'google'): Destination =>
  googleSheetsDestination(spreadsheet, connection, { base_url: receiver.url });

/** The connection's secrets as forward-catalog reads them (oauth.ts's roles). */
const credentials = (client: string, refresh: string): Record<string, string> => ({
  [OAUTH_ROLES.client_id]: client,
  [OAUTH_ROLES.client_secret]: `${client}-secret`,
  [OAUTH_ROLES.refresh_token]: refresh,
});

describe('segment_action: OAuth connections against the local OAuth and Google Sheets stand-ins', function () {
  this.timeout(30000);
  let receiver: CaptureReceiver;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${receiver.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 204, await res.text());
  };
  const rows = async (spreadsheet: string) => {
    const res = await fetch(`${receiver.url}${SPREADSHEETS_PATH}/${spreadsheet}`);
    return ((await res.json()) as { sheets: Record<string, string[][]> }).sheets['Sheet1'] ?? [];
  };
  const tokenCalls = () => receiver.captured(TOKEN_HOST);

  before(async () => {
    receiver = await startCaptureReceiver();
  });
  after(() => receiver.close());

  it('gets a token with Segment’s refreshAccessToken, and after a 401 refreshes once and writes the row', async () => {
    await post(CLIENTS_PATH, {
      client_id: 'c-expire',
      client_secret: 'c-expire-secret',
      refresh_token: 'r-expire',
      expire_first_token: true,
    });
    await post(SPREADSHEETS_PATH, { id: 'book-1' });
    const before = tokenCalls().length;
    const r = await runSegmentAction(
      purchase('e1'),
      sheets(receiver, 'book-1'),
      credentials('c-expire', 'r-expire'),
      {
        fetch,
        now: NOW,
      },
    );
    assert.deepEqual(r.outcomes, [
      { action: 'postSheet', outcome: { status: 'delivered', httpStatus: 200 } },
    ]);
    // Two token requests: the first token (expired at once by the stand-in), then the refresh after the 401.
    const tokens = tokenCalls().slice(before);
    assert.equal(tokens.length, 2);
    for (const t of tokens) {
      assert.equal(t.method, 'POST');
      assert.equal(t.path, '/oauth2/v4/token');
      assert.equal(t.status, 200);
      const form = new URLSearchParams(t.raw);
      assert.equal(form.get('grant_type'), 'refresh_token');
      assert.equal(form.get('refresh_token'), 'r-expire');
      assert.equal(form.get('client_id'), 'c-expire');
    }
    const api = receiver.captured(SHEETS_HOST).filter((q) => q.path.includes('book-1'));
    assert.deepEqual(
      api.map((q) => `${q.method} ${decodeURIComponent(q.path)} ${q.status}`),
      [
        'GET /v4/spreadsheets/book-1/values/Sheet1!A2:A 401',
        'GET /v4/spreadsheets/book-1/values/Sheet1!A2:A 200',
        'POST /v4/spreadsheets/book-1/values:batchUpdate 200',
        'POST /v4/spreadsheets/book-1/values/Sheet1!A2:append 200',
      ],
    );
    const second = (tokens[1]?.response as { access_token?: string } | undefined)?.access_token;
    assert.equal(api[1]?.headers['authorization'], `Bearer ${second}`);
    assert.deepEqual(await rows('book-1'), [
      ['id', 'order', 'total'],
      ['e1', 'order-e1', '42'],
    ]);
    // The requests the ledger lists include the token call; the bodies kept (identifier kinds) never its credentials.
    assert.ok(r.requests.some((q) => q.url === 'https://www.googleapis.com/oauth2/v4/token'));
    assert.ok(r.bodies.every((b) => !b.includes('r-expire')));

    // The next delivery sends the cached token: no token request.
    const r2 = await runSegmentAction(
      purchase('e2'),
      sheets(receiver, 'book-1'),
      credentials('c-expire', 'r-expire'),
      {
        fetch,
        now: NOW,
      },
    );
    assert.equal(r2.outcomes[0]?.outcome.status, 'delivered');
    assert.equal(tokenCalls().length, before + 2);
    assert.equal((await rows('book-1')).length, 3);
  });

  it('deliveries in flight that need a token share one refresh', async () => {
    await post(CLIENTS_PATH, {
      client_id: 'c-fold',
      client_secret: 'c-fold-secret',
      refresh_token: 'r-fold',
    });
    await post(SPREADSHEETS_PATH, { id: 'book-2' });
    const before = tokenCalls().length;
    const results = await Promise.all(
      ['f1', 'f2', 'f3', 'f4', 'f5'].map((id) =>
        runSegmentAction(purchase(id), sheets(receiver, 'book-2'), credentials('c-fold', 'r-fold'), {
          fetch,
          now: NOW,
        }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.outcomes[0]?.outcome.status),
      ['delivered', 'delivered', 'delivered', 'delivered', 'delivered'],
    );
    assert.equal(tokenCalls().length - before, 1);
  });

  it('a refresh token the endpoint rotates is used next, though the definition does not pass it on', async () => {
    // Google's refreshAccessToken answers the access token only; a provider that rotates answers a
    // new refresh token too and takes the used one back (RFC 6749 §6): the next refresh must send it.
    await post(CLIENTS_PATH, {
      client_id: 'c-rotate',
      client_secret: 'c-rotate-secret',
      refresh_token: 'r-rotate',
      rotate_refresh_tokens: true,
      expires_in: 30, // under the 60 s margin: every delivery refreshes
    });
    await post(SPREADSHEETS_PATH, { id: 'book-6' });
    const before = tokenCalls().length;
    const outcomes = [];
    for (const id of ['o1', 'o2', 'o3']) {
      const r = await runSegmentAction(
        purchase(id),
        sheets(receiver, 'book-6', 'rotating'),
        credentials('c-rotate', 'r-rotate'),
        { fetch, now: NOW },
      );
      outcomes.push(r.outcomes[0]?.outcome.status);
    }
    assert.deepEqual(outcomes, ['delivered', 'delivered', 'delivered']);
    const tokens = tokenCalls().slice(before);
    assert.deepEqual(
      tokens.map((t) => t.status),
      [200, 200, 200],
    );
    const sent = tokens.map((t) => new URLSearchParams(t.raw).get('refresh_token'));
    const answered = tokens.map((t) => (t.response as { refresh_token?: string }).refresh_token);
    assert.deepEqual(sent, ['r-rotate', answered[0], answered[1]]);
  });

  it('a refresh token the endpoint refuses (invalid_grant) rejects the delivery, naming the connection, no secret in the reason', async () => {
    await post(CLIENTS_PATH, { client_id: 'c-bad', client_secret: 'c-bad-secret' });
    await post(SPREADSHEETS_PATH, { id: 'book-3' });
    const r = await runSegmentAction(
      purchase('b1'),
      sheets(receiver, 'book-3', 'revoked'),
      credentials('c-bad', 'r-revoked'),
      { fetch, now: NOW },
    );
    const o = r.outcomes[0]?.outcome;
    assert.equal(o?.status, 'rejected');
    const reason = o?.status === 'rejected' ? o.reason : '';
    assert.match(
      reason,
      /^postSheet: the access token of connection revoked could not be refreshed \(authorise the connection again/,
    );
    assert.ok(!reason.includes('r-revoked') && !reason.includes('c-bad-secret'), reason);
    const [token] = receiver.captured(TOKEN_HOST).filter((q) => q.raw.includes('r-revoked'));
    assert.equal(token?.status, 400);
    assert.deepEqual(token?.response, {
      error: 'invalid_grant',
      error_description: 'the refresh token is invalid, revoked, or was issued to another client',
    });
    assert.deepEqual(
      receiver.captured(SHEETS_HOST).filter((q) => q.path.includes('book-3')),
      [],
    );
  });

  it('the token endpoint passes the destination’s allowed_hosts like the actions’ own requests', async () => {
    await post(CLIENTS_PATH, {
      client_id: 'c-egress',
      client_secret: 'c-egress-secret',
      refresh_token: 'r-egress',
    });
    const before = tokenCalls().length;
    const r = await runSegmentAction(
      purchase('g1'),
      { ...sheets(receiver, 'book-5', 'egress'), allowed_hosts: ['sheets.googleapis.com'] },
      credentials('c-egress', 'r-egress'),
      { fetch, now: NOW },
    );
    const o = r.outcomes[0]?.outcome;
    assert.equal(o?.status, 'rejected');
    assert.match(
      o?.status === 'rejected' ? o.reason : '',
      /^postSheet: the access token of connection egress could not be refreshed: egress refused: www\.googleapis\.com is not one of the destination's allowed_hosts/,
    );
    assert.equal(tokenCalls().length, before, 'nothing sent to the token endpoint');
  });

  it('a token refused again after the refresh is the action’s outcome: one refresh, no loop', async () => {
    await post(CLIENTS_PATH, {
      client_id: 'c-twice',
      client_secret: 'c-twice-secret',
      refresh_token: 'r-twice',
    });
    await post(SPREADSHEETS_PATH, { id: 'book-4' });
    const unauthenticated = {
      status: 401,
      body: { error: { code: 401, message: 'no', status: 'UNAUTHENTICATED' } },
    };
    receiver.answerNext(SHEETS_HOST, [unauthenticated, unauthenticated], 'book-4');
    const before = tokenCalls().length;
    const r = await runSegmentAction(
      purchase('t1'),
      sheets(receiver, 'book-4'),
      credentials('c-twice', 'r-twice'),
      {
        fetch,
        now: NOW,
      },
    );
    const o = r.outcomes[0]?.outcome;
    assert.equal(o?.status, 'rejected');
    assert.equal(o?.httpStatus, 401);
    assert.equal(tokenCalls().length - before, 2); // the first token, and one refresh
  });
});
