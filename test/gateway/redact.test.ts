/**
 * core/privacy/redact-url.ts: what of a request URL the gateway shows, table-driven. A URL credential
 * is redacted in every spelling of a translator's path and in credential-named parameters;
 * ordinary paths and queries are shown as they are.
 */
import assert from 'node:assert/strict';
import { redactUrl } from '../../core/privacy/redact-url.ts';

const T = 'ebt_0123456789ab_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const K = 'ebk_0123456789ab_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';

describe('gateway: redactUrl', () => {
  const cases: [string, string][] = [
    ['/v1/topics/events', '/v1/topics/events'],
    ['/v1/topics/checkout_completed_with_upsell_offer', '/v1/topics/checkout_completed_with_upsell_offer'],
    ['/v1/projects/p/topics/events:publish', '/v1/projects/p/topics/events:publish'],
    ['/v1/translators/forms', '/v1/translators/forms'],
    ['/v1/translators/forms?partial=true', '/v1/translators/forms?partial=true'],
    [`/v1/translators/forms/${T}`, '/v1/translators/forms/[redacted]'],
    [`/v1/translators/forms/${T}/`, '/v1/translators/forms/[redacted]/'],
    [`/v1/translators/forms/${T}.json`, '/v1/translators/forms/[redacted]'],
    [`/v1/translators/forms//${T}`, '/v1/translators/forms//[redacted]'],
    [`/v1/translators/FORMS/${T}`, '/v1/translators/FORMS/[redacted]'],
    [`/V1/TRANSLATORS/forms/${T}`, '/V1/TRANSLATORS/forms/[redacted]'],
    [
      '/v1/translators/forms/not-a-token-but-still-the-credential-segment',
      '/v1/translators/forms/[redacted]',
    ],
    [`/v1/translators/forms/%65bt_${T.slice(4)}`, '/v1/translators/forms/[redacted]'],
    [`/v1/topics/${K}`, '/v1/topics/[redacted]'],
    [`/v1/topics/x.%2565bt_${T.slice(4)}`, '/v1/topics/[redacted]'],
    [`http://u:${T}@gw.example/v1/topics/events`, 'http://[redacted]@gw.example/v1/topics/events'],
    [`/v1/topics/events?key=${K}`, '/v1/topics/events?key=[redacted]'],
    [`/v1/x?partial=true&token=abc&writeKey=def`, '/v1/x?partial=true&token=[redacted]&writeKey=[redacted]'],
    [`/v1/x?access_token=abc&Key=x`, '/v1/x?access_token=[redacted]&Key=[redacted]'],
    [`/v1/x?next=${T}`, '/v1/x?next=[redacted]'],
    [`/v1/x?${T}`, '/v1/x?[redacted]'],
    ['/v1/x?k%65y=abc', '/v1/x?k%65y=[redacted]'],
  ];
  for (const [url, shown] of cases)
    it(`${url.slice(0, 60)} → ${shown}`, () => assert.equal(redactUrl(url), shown));
});
