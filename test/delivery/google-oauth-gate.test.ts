/**
 * OAuth token refreshes of a Google credentials secret (adapters/google-oauth.ts) through the
 * egress gate (issue #98): the token endpoint is Google's, fixed in code, or an allow-listed
 * stand-in's; a `token_uri` naming any other is refused with the reason before any request (the
 * refresh token and client secret never leave), and an accepted refresh is sent by the gate.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEgressSender, egressFetch } from '../../adapters/egress.ts';
import { createAccessTokens, GOOGLE_TOKEN_URL, refusedTokenUri } from '../../adapters/google-oauth.ts';
import { EGRESS_REFUSED_CODE, parseAllowList } from '../../core/egress/policy.ts';
import { DATA_MANAGER_SCOPE } from '../../core/platforms/google-ads/driver.ts';
import {
  type GoogleAdsReceiver,
  standInCredentials,
  startGoogleAdsReceiver,
} from '../../local/platforms/index.ts';

/** A credentials file naming `tokenUri`. */
const credentialsAt = (tokenUri: string) =>
  JSON.stringify({
    type: 'authorized_user',
    client_id: 'c-1',
    client_secret: 'client-secret-value',
    refresh_token: 'refresh-token-value',
    token_uri: tokenUri,
  });

describe('google-oauth: token endpoints fixed in code, refreshes through the gate', () => {
  let standIn: GoogleAdsReceiver;
  let elsewhere: Server;
  let elsewhereOrigin: string;
  let reached = 0;
  before(async () => {
    standIn = await startGoogleAdsReceiver();
    elsewhere = createServer((_req, res) => {
      reached++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"access_token":"stolen","expires_in":3600}');
    });
    elsewhere.listen(0, '127.0.0.1');
    await once(elsewhere, 'listening');
    elsewhereOrigin = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  });
  after(() => {
    standIn.close();
    elsewhere.close();
  });

  /** The gate over `allow`, with every call it is asked to make counted. */
  function gated(allow: string) {
    const calls: string[] = [];
    const list = parseAllowList(allow);
    const gate = egressFetch(
      createEgressSender({ allow: list, component: 'test-oauth', log: () => {} }),
      5000,
    );
    const fetch: typeof globalThis.fetch = (input, init) => {
      calls.push(String(input instanceof Request ? input.url : input));
      return gate(input, init);
    };
    return { tokens: createAccessTokens({ fetch, allow: list }), calls };
  }

  it("takes Google's endpoint and an allow-listed stand-in; refuses any other, naming it", () => {
    const none = parseAllowList('');
    assert.equal(refusedTokenUri(GOOGLE_TOKEN_URL, none), undefined);
    for (const other of [
      'https://evil.example/token',
      'https://oauth2.googleapis.com.evil.example/token',
      'https://oauth2.googleapis.com/token?redirect=https://evil.example',
      'http://oauth2.googleapis.com/token',
      'http://169.254.169.254/token',
      'not a url',
    ])
      assert.match(
        refusedTokenUri(other, none) ?? '',
        /^egress refused: the credentials' token_uri .* is not Google's token endpoint/,
        other,
      );
    assert.equal(
      refusedTokenUri('http://127.0.0.1:8099/google-ads/token', parseAllowList('http://127.0.0.1:8099')),
      undefined,
    );
  });

  it('a token_uri at an unknown endpoint is refused with the reason: nothing sent there', async () => {
    const { tokens, calls } = gated(new URL(standIn.url).origin);
    await assert.rejects(
      tokens(credentialsAt(`${elsewhereOrigin}/token`), DATA_MANAGER_SCOPE, false),
      (err: Error & { code?: string }) =>
        err.code === EGRESS_REFUSED_CODE && err.message.includes(`${elsewhereOrigin}/token`),
    );
    assert.equal(reached, 0, 'the refresh token and client secret never left');
    assert.deepEqual(calls, []);
  });

  it("the stand-in's endpoint (on the allow-list): the refresh goes through the gate", async () => {
    const { tokens, calls } = gated(new URL(standIn.url).origin);
    const token = await tokens(standInCredentials(standIn.url), DATA_MANAGER_SCOPE, false);
    assert.ok(token.length > 0);
    assert.deepEqual(calls, [`${standIn.url.replace(/\/+$/, '')}/token`]);
  });
});
