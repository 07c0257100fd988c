/**
 * The creator's sample headers (studio/web/creator-headers.ts): `Name: value` lines or a curl
 * command's `-H` options are read as headers, a line that is neither is named, a header that
 * carries a credential or a signature is never offered as the event type nor read, and a
 * topic-named header is offered first.
 */
import assert from 'node:assert/strict';
import { eventNameGuess } from '../../core/samples/index.ts';
import { readableHeaders, readHeaders, typeHeaders } from '../../studio/web/creator-headers.ts';

describe('studio creator: the sample’s headers', () => {
  it('reads Name: value lines and names a line that is no header', () => {
    const { headers, problems } = readHeaders(
      'Content-Type: application/json\n\nX-Shopify-Topic:  orders/create \nnot a header\n: empty name',
    );
    assert.deepEqual(headers, [
      { name: 'Content-Type', value: 'application/json' },
      { name: 'X-Shopify-Topic', value: 'orders/create' },
    ]);
    assert.deepEqual(problems, [
      'line 4: "not a header" is not a header (Name: value)',
      'line 5: ": empty name" is not a header (Name: value)',
    ]);
  });

  it('reads a curl command’s -H and --header options, quoted either way, over continued lines', () => {
    const curl = `curl -X POST https://example.test/hook \\\n  -H 'X-GitHub-Event: push' \\\n  --header "X-GitHub-Delivery: 72d3162e" -H Content-Type:application/json -d '{"a":1}'`;
    const { headers, problems } = readHeaders(curl);
    assert.deepEqual(problems, []);
    assert.deepEqual(
      headers.map((h) => `${h.name}=${h.value}`),
      ['X-GitHub-Event=push', 'X-GitHub-Delivery=72d3162e', 'Content-Type=application/json'],
    );
  });

  it('offers a topic-named header first, never a credential or a signature, and never reads one', () => {
    const { headers } = readHeaders(
      [
        'X-Request-Id: 5c2f',
        'Content-Type: application/json',
        'X-Shopify-Hmac-Sha256: 8d9f==',
        'Authorization: Bearer secret-token',
        'X-Shopify-Topic: orders/create',
        'X-Note: two words',
      ].join('\n'),
    );
    assert.deepEqual(
      typeHeaders(headers).map((h) => h.name),
      ['X-Shopify-Topic'],
    );
    assert.deepEqual(readableHeaders(headers), {
      'x-request-id': '5c2f',
      'content-type': 'application/json',
      'x-shopify-topic': 'orders/create',
      'x-note': 'two words',
    });
  });

  it('names a header’s type from its value, as the registry takes a name', () => {
    const named = (value: string) => eventNameGuess(value, 'header:X-Topic');
    assert.deepEqual(named('orders/create'), {
      name: 'orders_create',
      why: 'from header:X-Topic = "orders/create"',
    });
    assert.equal(named('push')?.name, 'push');
    assert.equal(named('google_sync')?.name, 'sync');
  });
});
