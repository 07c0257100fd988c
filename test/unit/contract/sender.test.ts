/**
 * Identifiers are the person's, never the server's (core/sender.ts, docs/gateway.md "Who sent an
 * event"): only a browser's request fills device.ip, device.user_agent and device.client_hints; a
 * server's or a translator's event keeps exactly what it sent, and collect_ip / collect_user_agent
 * still apply to it.
 */
import assert from 'node:assert/strict';
import { type NormalizeContext, normalizeEvent, normalizeOptions } from '../../../core/event.ts';
import { happenedOnWebsite, SENDERS, type Sender, senderOf } from '../../../core/sender.ts';
import type { Settings } from '../../../schemas/settings.ts';

const base: Settings = { name: 'test', project: 'test-project', region: 'europe-west1' };
const request = {
  ip: '198.51.100.23',
  userAgent: 'node',
  hints: { mobile: '?0', platform: '"Linux"' },
};
const normalize = (
  raw: Record<string, unknown>,
  sender: Sender | undefined,
  settings: Partial<Settings> = {},
) => {
  const ctx: NormalizeContext = {
    options: normalizeOptions({ ...base, ...settings }),
    now: Date.parse('2026-01-01T00:00:00.000Z'),
    newId: () => 'id-1',
    client: { ...request, sender },
  };
  const r = normalizeEvent({ event_name: 'page_view', event_id: 'e1', ...raw }, ctx);
  assert.ok(r.ok, JSON.stringify(r));
  return r;
};

describe('contract: who sent an event decides whose device it carries', () => {
  it('fills a browser’s address, user agent and client hints, and names them as server fields', () => {
    const r = normalize({}, 'browser');
    assert.deepEqual(r.event.device, {
      ip: '198.51.100.23',
      user_agent: 'node',
      client_hints: { mobile: '?0', platform: '"Linux"' },
    });
    assert.deepEqual(r.serverFields, ['event_time', 'device.ip', 'device.user_agent', 'device.client_hints']);
  });

  it('lets a browser’s observed address win over the device.ip its event claims', () => {
    assert.equal(normalize({ device: { ip: '203.0.113.9' } }, 'browser').event.device?.ip, '198.51.100.23');
  });

  for (const sender of ['server', 'translator', undefined] as const) {
    it(`fills nothing for ${sender ?? 'a request with no sender'}: a device left out stays out`, () => {
      const r = normalize({}, sender);
      assert.equal(r.event.device, undefined);
      assert.deepEqual(r.serverFields, ['event_time']);
    });

    it(`keeps exactly what ${sender ?? 'a request with no sender'} sent, collect_ip applying to it`, () => {
      const sent = { ip: '203.0.113.9', locale: 'de' };
      assert.deepEqual(normalize({ device: sent }, sender).event.device, sent);
      assert.deepEqual(
        normalize({ device: sent }, sender, { producers: { collect_ip: 'truncated' } }).event.device,
        {
          ip: '203.0.113.0',
          locale: 'de',
        },
      );
      assert.deepEqual(
        normalize({ device: sent }, sender, { producers: { collect_ip: 'none' } }).event.device,
        {
          locale: 'de',
        },
      );
    });
  }

  it('applies collect_ip and collect_user_agent to what a browser fills', () => {
    const r = normalize({}, 'browser', { producers: { collect_ip: 'truncated', collect_user_agent: false } });
    assert.deepEqual(r.event.device, { ip: '198.51.100.0' });
  });

  it('reads the sender attribute, and nothing else, as a sender', () => {
    for (const s of SENDERS) assert.equal(senderOf(s), s);
    for (const v of [undefined, '', 'key', 'token', 'Browser']) assert.equal(senderOf(v), undefined);
  });
});

describe('contract: where an event happened follows its sender', () => {
  const page = { url: 'https://shop.example/checkout' };
  const cases: [string, Parameters<typeof happenedOnWebsite>[0], boolean][] = [
    ['a browser’s event with a page', { sender: 'browser', page }, true],
    // Meta and Snapchat refuse a website event without its page's URL.
    ['a browser’s event without a page', { sender: 'browser' }, false],
    ['a server’s event forwarding a page', { sender: 'server', page }, true],
    ['a server’s event without a page', { sender: 'server' }, false],
    ['a translator’s event, even naming a page', { sender: 'translator', page }, false],
    ['a translator’s event without a page', { sender: 'translator' }, false],
    ['an event of unknown sender with a page (a native publish, a replayed row)', { page }, true],
    ['an event of unknown sender without a page', {}, false],
  ];
  for (const [name, event, website] of cases)
    it(`${name}: ${website ? 'a website' : 'not a website'}`, () =>
      assert.equal(happenedOnWebsite(event), website));
});
