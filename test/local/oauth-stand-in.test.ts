/**
 * The local OAuth 2 stand-in (local/platforms/oauth.ts) as strict as RFC 6749's token endpoint,
 * and the Google Sheets stand-in (local/platforms/google-sheets.ts) refusing what Google refuses.
 */
import assert from 'node:assert/strict';
import { createSheetsStandIn } from '../../local/platforms/google-sheets.ts';
import { createOAuthStandIn } from '../../local/platforms/oauth.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('local: the OAuth 2 stand-in (RFC 6749)', () => {
  let clock = 1_000_000;
  const oauth = createOAuthStandIn(() => clock);
  assert.equal(
    oauth.register({
      client_id: 'c1',
      client_secret: 's e/cret',
      refresh_token: 'r1',
      redirect_uris: ['http://127.0.0.1:9/cb'],
    }),
    undefined,
  );
  const token = (raw: string, headers: Record<string, string> = FORM, method = 'POST') =>
    oauth.token({ method, headers, raw });
  const errorOf = (a: { status: number; body?: unknown }) =>
    `${a.status} ${(a.body as { error?: string }).error}`;

  it('refresh_token with the client in the body: a Bearer token, expires_in, no-store', () => {
    const a = token('grant_type=refresh_token&refresh_token=r1&client_id=c1&client_secret=s+e%2Fcret');
    assert.equal(a.status, 200);
    const body = a.body as { access_token: string; token_type: string; expires_in: number };
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 3600);
    assert.equal(a.headers?.['cache-control'], 'no-store');
    assert.equal(oauth.accessTokenState(body.access_token), 'valid');
    clock += 3601_000;
    assert.equal(oauth.accessTokenState(body.access_token), 'expired');
  });

  it('refresh_token with HTTP Basic (each part form-encoded); a Bearer header is no client authentication', () => {
    assert.equal(
      token('grant_type=refresh_token&refresh_token=r1', { ...FORM, authorization: basic('c1', 's e/cret') })
        .status,
      200,
    );
    assert.equal(
      errorOf(token('grant_type=refresh_token&refresh_token=r1', { ...FORM, authorization: 'Bearer stale' })),
      '401 invalid_client',
    );
  });

  it('refuses what RFC 6749 refuses, each with its JSON error', () => {
    const ok = 'grant_type=refresh_token&refresh_token=r1&client_id=c1&client_secret=s+e%2Fcret';
    assert.equal(errorOf(token(ok, FORM, 'GET')), '405 invalid_request');
    assert.equal(errorOf(token(ok, { 'content-type': 'application/json' })), '400 invalid_request');
    assert.equal(errorOf(token(`${ok}&grant_type=refresh_token`)), '400 invalid_request');
    assert.equal(
      errorOf(token(ok, { ...FORM, authorization: basic('c1', 's e/cret') })),
      '400 invalid_request',
      'two client authentications',
    );
    const wrongSecret = token('grant_type=refresh_token&refresh_token=r1', {
      ...FORM,
      authorization: basic('c1', 'no'),
    });
    assert.equal(errorOf(wrongSecret), '401 invalid_client');
    assert.match(wrongSecret.headers?.['www-authenticate'] ?? '', /^Basic /);
    assert.equal(
      errorOf(token('refresh_token=r1&client_id=c1&client_secret=s+e%2Fcret')),
      '400 invalid_request',
    );
    assert.equal(
      errorOf(token('grant_type=password&client_id=c1&client_secret=s+e%2Fcret')),
      '400 unsupported_grant_type',
    );
    assert.equal(
      errorOf(token('grant_type=refresh_token&refresh_token=other&client_id=c1&client_secret=s+e%2Fcret')),
      '400 invalid_grant',
    );
  });

  it('authorization_code: a code from the authorization endpoint, once, with the same redirect_uri, gives a refresh token', () => {
    const cb = 'http://127.0.0.1:9/cb';
    assert.equal(
      oauth.authorize({ client_id: 'c1', redirect_uri: 'http://evil.example/cb', response_type: 'code' })
        .status,
      400,
    );
    const redirect = oauth.authorize({
      client_id: 'c1',
      redirect_uri: cb,
      response_type: 'code',
      state: 'xyz',
    });
    assert.equal(redirect.status, 302);
    const back = new URL(redirect.headers?.['location'] ?? '');
    assert.equal(back.searchParams.get('state'), 'xyz');
    const code = back.searchParams.get('code') ?? '';
    const creds = 'client_id=c1&client_secret=s+e%2Fcret';
    assert.equal(
      errorOf(
        token(
          `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/x')}&${creds}`,
        ),
      ),
      '400 invalid_grant',
    );
    // The failed exchange used the code up.
    const again = oauth.authorize({ client_id: 'c1', redirect_uri: cb, response_type: 'code' });
    const code2 = new URL(again.headers?.['location'] ?? '').searchParams.get('code') ?? '';
    const a = token(
      `grant_type=authorization_code&code=${code2}&redirect_uri=${encodeURIComponent(cb)}&${creds}`,
    );
    assert.equal(a.status, 200);
    const refresh = (a.body as { refresh_token: string }).refresh_token;
    assert.equal(token(`grant_type=refresh_token&refresh_token=${refresh}&${creds}`).status, 200);
    assert.equal(
      errorOf(
        token(`grant_type=authorization_code&code=${code2}&redirect_uri=${encodeURIComponent(cb)}&${creds}`),
      ),
      '400 invalid_grant',
      'a code is used once',
    );
  });
});

describe('local: the Google Sheets stand-in', () => {
  const oauth = createOAuthStandIn();
  oauth.register({ client_id: 'c', client_secret: 's', refresh_token: 'r' });
  const issued = oauth.token({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    raw: 'grant_type=refresh_token&refresh_token=r&client_id=c&client_secret=s',
  });
  const bearer = { authorization: `Bearer ${(issued.body as { access_token: string }).access_token}` };
  const sheets = createSheetsStandIn(oauth);
  sheets.create({ id: 'b1' });
  const status = (a: { status: number; body?: unknown }) =>
    `${a.status} ${(a.body as { error?: { status?: string } }).error?.status ?? ''}`.trim();

  it('appends under the table and reads back, as Google answers', () => {
    const append = (values: string[][]) =>
      sheets.handle({
        method: 'POST',
        path: '/v4/spreadsheets/b1/values/Sheet1!A2:append',
        query: { valueInputOption: 'RAW' },
        headers: bearer,
        body: { values },
      });
    const first = append([['a', '1']]);
    assert.equal(first.status, 200);
    assert.equal((first.body as { updates: { updatedRange: string } }).updates.updatedRange, 'Sheet1!A2:B2');
    const second = append([['b', '2']]);
    assert.deepEqual((second.body as { tableRange: string }).tableRange, 'Sheet1!A2:B2');
    assert.equal((second.body as { updates: { updatedRange: string } }).updates.updatedRange, 'Sheet1!A3:B3');
    const got = sheets.handle({
      method: 'GET',
      path: '/v4/spreadsheets/b1/values/Sheet1!A2:A',
      query: {},
      headers: bearer,
      body: undefined,
    });
    assert.deepEqual((got.body as { values: string[][] }).values, [['a'], ['b']]);
  });

  it('refuses a missing or unknown token, a missing valueInputOption, an unknown spreadsheet or sheet', () => {
    const at = (
      path: string,
      headers: Record<string, string> = bearer,
      query: Record<string, string> = { valueInputOption: 'RAW' },
    ) => sheets.handle({ method: 'POST', path, query, headers, body: { values: [['x']] } });
    assert.equal(status(at('/v4/spreadsheets/b1/values/Sheet1!A1:append', {})), '401 UNAUTHENTICATED');
    assert.equal(
      status(at('/v4/spreadsheets/b1/values/Sheet1!A1:append', { authorization: 'Bearer nope' })),
      '401 UNAUTHENTICATED',
    );
    assert.equal(
      status(at('/v4/spreadsheets/b1/values/Sheet1!A1:append', bearer, {})),
      '400 INVALID_ARGUMENT',
    );
    assert.equal(status(at('/v4/spreadsheets/b9/values/Sheet1!A1:append')), '404 NOT_FOUND');
    assert.equal(status(at('/v4/spreadsheets/b1/values/Other!A1:append')), '400 INVALID_ARGUMENT');
  });
});
