/**
 * Identifiers are the person's, never the server's (issue #62; core/sender.ts, docs/gateway.md
 * "Who sent an event"), through HTTP: a project token's event without `device` is published
 * without the request's address, user agent or client hints (before, a backend got its own
 * 127.0.0.1 and `node` as the customer's); a write key's event from a page carries the browser's;
 * every event names its sender in the `sender` attribute, which a producer cannot choose.
 */
import assert from 'node:assert/strict';
import { SERVER_FIELDS_ATTRIBUTE } from '../../core/event.ts';
import { SENDER_ATTRIBUTE } from '../../core/sender.ts';
import {
  FakePublisher,
  fixedTranslators,
  ORIGIN,
  post,
  startTestGateway,
  type TestGateway,
} from './support.ts';

const lead = {
  event_name: 'lead',
  event_id: 'lead-1',
  user: { email: 'jane@example.com' },
  form_name: 'quote',
};
/** What a backend's HTTP client and a Chromium browser send along with every request. */
const NODE = { 'user-agent': 'node' };
const CHROME = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36',
  'sec-ch-ua-mobile': '?0',
  'sec-ch-ua-platform': '"Linux"',
};

describe('gateway: who sent an event decides whose device it carries', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  beforeEach(async () => {
    pub = new FakePublisher();
    g = await startTestGateway({
      publisher: pub,
      translators: fixedTranslators({
        leads: {
          event: 'lead',
          format: { type: 'json' },
          fields: [
            { target: 'event_id', source: 'id' },
            { target: 'user.email', source: 'email' },
            { target: 'page.url', source: 'url' },
          ],
        },
      }),
    });
  });
  afterEach(() => g.close());

  /** The last message published: its event and its attributes. */
  const last = () => {
    const m = pub.calls.at(-1)?.messages.at(-1);
    assert.ok(m, 'a message was published');
    return { event: JSON.parse(m.data.toString()), attributes: m.attributes };
  };
  const token = () => ({ authorization: `Bearer ${g.token}` });

  it('a project token’s event without device is published without an address, user agent or hints', async () => {
    for (const headers of [NODE, CHROME]) {
      const res = await post(`${g.url}/v1/topics/events`, lead, { ...token(), ...headers });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const { event, attributes } = last();
      assert.equal(event.device, undefined, JSON.stringify(event));
      assert.equal(attributes[SENDER_ATTRIBUTE], 'server');
      // Only the receive time was filled in: no device field is named as the server's.
      assert.equal(attributes[SERVER_FIELDS_ATTRIBUTE], 'event_time');
    }
  });

  it('a project token’s event keeps the device it forwards, as sent', async () => {
    const device = { ip: '203.0.113.9', user_agent: 'Mozilla/5.0 (iPhone) Safari/605.1.15' };
    const res = await post(`${g.url}/v1/topics/events`, { ...lead, device }, { ...token(), ...CHROME });
    assert.equal(res.status, 200);
    assert.deepEqual(last().event.device, device);
  });

  it('the :publish form of a token’s event carries no address either', async () => {
    const data = Buffer.from(JSON.stringify(lead)).toString('base64');
    const res = await post(
      `${g.url}/v1/projects/test-project/topics/events:publish`,
      { messages: [{ data }] },
      { ...token(), ...NODE },
    );
    assert.equal(res.status, 200);
    assert.equal(last().event.device, undefined);
  });

  it('a write key’s event from a page carries the browser’s address, user agent and hints', async () => {
    const res = await post(`${g.url}/v1/topics/events`, lead, {
      origin: ORIGIN,
      'x-write-key': g.key,
      ...CHROME,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { event, attributes } = last();
    assert.deepEqual(event.device, {
      ip: '127.0.0.1',
      user_agent: CHROME['user-agent'],
      client_hints: { mobile: '?0', platform: '"Linux"' },
    });
    assert.equal(attributes[SENDER_ATTRIBUTE], 'browser');
    assert.equal(
      attributes[SERVER_FIELDS_ATTRIBUTE],
      'event_time,device.ip,device.user_agent,device.client_hints',
    );
  });

  it('a server-usable key called from a server (Basic, no Origin) is a server: nothing filled', async () => {
    const key = await g.mintKey({ server: true });
    const basic = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
    const res = await post(`${g.url}/v1/topics/events`, lead, { authorization: basic, ...NODE });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { event, attributes } = last();
    assert.equal(event.device, undefined);
    assert.equal(attributes[SENDER_ATTRIBUTE], 'server');
    assert.equal(attributes['credential'], 'key');
  });

  it('a translator’s events carry only what the payload maps, and say so', async () => {
    const auth = { authorization: `Bearer ${await g.mint(['translate:leads'])}`, ...CHROME };
    const res = await post(
      `${g.url}/v1/translators/leads`,
      [{ id: 'w-1', email: 'jane@example.com', url: 'https://shop.example/quote' }],
      auth,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { event, attributes } = last();
    assert.equal(event.device, undefined);
    assert.equal(attributes[SENDER_ATTRIBUTE], 'translator');
  });

  it('a producer’s own `sender` attribute is replaced, never taken', async () => {
    const data = Buffer.from(JSON.stringify(lead)).toString('base64');
    const res = await post(
      `${g.url}/v1/projects/test-project/topics/events:publish`,
      { messages: [{ data, attributes: { [SENDER_ATTRIBUTE]: 'browser' } }] },
      { ...token(), ...NODE },
    );
    assert.equal(res.status, 200);
    const { event, attributes } = last();
    assert.equal(attributes[SENDER_ATTRIBUTE], 'server');
    assert.equal(event.device, undefined);
  });
});
