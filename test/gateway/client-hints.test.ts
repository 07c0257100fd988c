/**
 * The gateway carries the User-Agent Client Hints headers it received into device.client_hints
 * (gateway/envelope.ts, clientHintsOf), raw, for the store function's enrichment to read: a
 * browser's, whose requests come with a write key (a server's are never read: test/gateway/
 * sender.test.ts). The header values are MDN's Sec-CH-UA-Model example (a Pixel 3 XL running Chrome 96).
 */
import assert from 'node:assert/strict';
import { FakePublisher, ORIGIN, post, startTestGateway, type TestGateway } from './support.ts';

const UA =
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/96.0.0.0 Mobile Safari/537.36';
const HINTS = {
  'sec-ch-ua': '" Not A;Brand";v="99", "Chromium";v="96", "Google Chrome";v="96"',
  'sec-ch-ua-mobile': '?1',
  'sec-ch-ua-platform': '"Android"',
  'sec-ch-ua-platform-version': '"12.0.0"',
  'sec-ch-ua-model': '"Pixel 3 XL"',
  'sec-ch-ua-full-version-list':
    '" Not A;Brand";v="99.0.0.0", "Chromium";v="96.0.4664.104", "Google Chrome";v="96.0.4664.104"',
};

describe('gateway: client hints', () => {
  // One gateway for the file: each test reads the events its own requests published.
  let g: TestGateway;
  const pub = new FakePublisher();
  before(async () => {
    g = await startTestGateway({ publisher: pub });
  });
  after(() => g.close());

  /** Publishes one page_view with the headers; the event the gateway published for it. */
  const publish = async (headers: Record<string, string>, event: Record<string, unknown> = {}) => {
    const a = await post(
      `${g.url}/v1/topics/events`,
      { event_name: 'page_view', ...event },
      {
        origin: ORIGIN,
        'x-write-key': g.key,
        'user-agent': UA,
        ...headers,
      },
    );
    assert.equal(a.status, 200);
    return JSON.parse(pub.calls.at(-1)?.messages[0]?.data.toString() ?? '{}');
  };

  it('carries each Sec-CH-UA* header it received into device.client_hints, unparsed', async () => {
    const event = await publish(HINTS);
    assert.deepEqual(event.device.client_hints, {
      ua: HINTS['sec-ch-ua'],
      mobile: '?1',
      platform: '"Android"',
      platform_version: '"12.0.0"',
      model: '"Pixel 3 XL"',
      full_version_list: HINTS['sec-ch-ua-full-version-list'],
    });
  });

  it('carries only the headers present, and none when the request had none', async () => {
    assert.deepEqual((await publish({ 'sec-ch-ua-mobile': '?1' })).device.client_hints, { mobile: '?1' });
    assert.equal((await publish({})).device.client_hints, undefined);
  });

  it('keeps the page’s own hints, and adds none to another user agent the event names', async () => {
    const own = await publish(HINTS, { device: { client_hints: { mobile: '?0' } } });
    assert.deepEqual(own.device.client_hints, { mobile: '?0' });
    const forwarded = await publish(HINTS, { device: { user_agent: 'Mozilla/5.0 (iPhone) Safari' } });
    assert.equal(forwarded.device.client_hints, undefined);
    // The same user agent as the request's is the browser's own: its hints are added.
    assert.equal(
      (await publish(HINTS, { device: { user_agent: UA } })).device.client_hints.model,
      '"Pixel 3 XL"',
    );
  });
});
