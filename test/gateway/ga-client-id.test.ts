/**
 * GA4's client id and the `_ga` cookie agree (#96; core/platforms/ga4/client-id.ts,
 * gateway/id-cookies.ts): the cookie's format read and refused, consent deciding whether it is
 * read at all, and, through a gateway and the GA4 driver, the `client_id` GA4 is sent equal to the
 * id in the `_ga` the answer sets — whether the gateway made it or a gtag-like script set it first.
 */
import assert from 'node:assert/strict';
import { type IncomingMessage, request } from 'node:http';
import type { StoredEvent } from '../../core/event.ts';
import { identityDigest } from '../../core/identity.ts';
import { pseudonymousId } from '../../core/linkage/transforms.ts';
import { gaClientIdOf, gaCookie } from '../../core/platforms/ga4/client-id.ts';
import { gaClientIds } from '../../gateway/id-cookies.ts';
import type { Settings } from '../../schemas/settings.ts';
import { GA4_DESTINATION, ga4ClientId } from '../support/ga4-client-id.ts';
import { baseSettings, FakePublisher, ORIGIN, startTestGateway } from './support.ts';

const GA4 = GA4_DESTINATION;
const withGa4 = (over: Partial<Settings> = {}) =>
  baseSettings({ gateway: { cookie_domain: 'shop.example' }, destinations: [GA4], ...over });
const GRANTED = { analytics: 'granted', ads: 'granted' };
const page = (consent: Record<string, unknown>) =>
  ({ event_name: 'page_view', event_id: 'e', event_time: '2026-11-27T10:00:00.000Z', consent }) as never;

const clientIdOf = ga4ClientId;

describe('gateway: GA4’s client id and the _ga cookie agree (#96)', () => {
  it('reads the client id of a _ga in gtag’s format and ignores anything else', () => {
    assert.equal(gaClientIdOf('GA1.1.468604437.1611708469'), '468604437.1611708469');
    assert.equal(gaClientIdOf('GA1.2.468604437.1611708469'), '468604437.1611708469');
    assert.equal(gaClientIdOf('GA1.3-2.1.1611708469'), '1.1611708469', 'a path depth after the index');
    assert.equal(gaClientIdOf(' GA1%2E1%2E5.6 '), '5.6', 'percent-encoded, spaces around');
    for (const bad of [
      undefined,
      '',
      'GA1.1.468604437',
      'GA2.1.468604437.1611708469',
      'GA1.1.abc.1611708469',
      'GA1.1.468604437.1611708469.7',
      'GA1.1.468604437.1611708469;x',
      `GA1.1.${'9'.repeat(21)}.1611708469`,
      'GA1.1.%E0%A4%A.1',
      '468604437.1611708469',
    ])
      assert.equal(gaClientIdOf(bad), undefined, String(bad));
    const made = pseudonymousId('anon-1') as string;
    assert.equal(
      gaClientIdOf(gaCookie(1, made)),
      made,
      'an id the gateway derives reads back from its cookie',
    );
  });

  it('consent decides whether the cookie is read at all; no GA4 destination or a cookieless page reads nothing', () => {
    const req = { host: 'shop.example', plainLoopback: false, cookie: '_ga=GA1.1.111.222' };
    const ids = gaClientIds(withGa4(), req);
    assert.ok(ids);
    assert.equal(ids(page(GRANTED)), '111.222', 'storage granted: the page’s id');
    assert.equal(ids(page({ analytics: 'granted' })), '111.222', 'ads do not matter to _ga');
    for (const consent of [
      {},
      { analytics: 'denied' },
      { analytics: 'granted', gdpr_applies: true },
      { analytics: 'granted', gpp_pending: true },
      { analytics: 'granted', tcf: 'not-a-tc-string', gdpr_applies: true },
    ])
      assert.equal(ids(page(consent)), undefined, JSON.stringify(consent));
    assert.equal(gaClientIds(baseSettings(), req), undefined, 'no GA4 destination');
    assert.equal(
      gaClientIds(withGa4({ destinations: [{ ...GA4, enabled: false }] }), req),
      undefined,
      'a disabled one',
    );
    assert.equal(gaClientIds(withGa4(), { ...req, cookieless: true }), undefined);
    // A malformed _ga (or none) is not read: the id derives from the event's anonymous id, the
    // same in every batch of that id (a gateway on another site, whose cookie the browser drops).
    const fresh = gaClientIds(withGa4(), { ...req, cookie: '_ga=GA1.1.bad' });
    const mine = { ...(page(GRANTED) as object), anonymous_id: 'anon-1' } as never;
    const derived = fresh?.(mine);
    assert.match(derived ?? '', /^\d+\.\d+$/);
    assert.equal(derived, pseudonymousId('anon-1'));
    assert.equal(gaClientIds(withGa4(), { ...req, cookie: undefined })?.(mine), derived);
    assert.notEqual(fresh?.({ ...(mine as object), anonymous_id: 'anon-2' } as never), derived);
    assert.equal(fresh?.(page(GRANTED)), undefined, 'no anonymous id, no _ga of the page: none');
  });

  it('the filled client id is a server field: a retry that gets another id is the same event', () => {
    const event = { event_name: 'page_view', event_id: 'e', campaign: { source: 'news' } };
    const a = { ...event, campaign: { ...event.campaign, ga_client_id: '1.2' } };
    const b = { ...event, campaign: { ...event.campaign, ga_client_id: '3.4' } };
    const fields = ['campaign.ga_client_id'];
    assert.equal(identityDigest(a, fields), identityDigest(b, fields));
    assert.equal(identityDigest(a, fields), identityDigest(event, undefined));
    assert.notEqual(identityDigest(a, undefined), identityDigest(b, undefined));
  });

  it('through a gateway: GA4’s client_id is the id of the _ga its answer sets, ours or gtag’s first', async () => {
    const pub = new FakePublisher();
    const g = await startTestGateway({ publisher: pub, settings: withGa4() });
    try {
      const post = (body: unknown, cookie?: string) =>
        new Promise<IncomingMessage>((resolve, reject) => {
          const r = request(
            `${g.url}/v1/topics/events?tag=1&key=${g.key}`,
            {
              method: 'POST',
              headers: {
                'content-type': 'text/plain',
                origin: ORIGIN,
                host: 'www.shop.example',
                ...(cookie ? { cookie } : {}),
              },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res));
            },
          );
          r.on('error', reject);
          r.end(JSON.stringify(body));
        });
      const published = () => {
        const messages = pub.calls.at(-1)?.messages ?? [];
        return messages.map((m) => ({
          event: JSON.parse(m.data.toString('utf8')) as StoredEvent,
          fields: m.attributes['server_fields'],
        }));
      };
      const gaSet = (res: IncomingMessage) =>
        (res.headers['set-cookie'] ?? [])
          .find((l) => l.startsWith('_ga='))
          ?.split(';')[0]
          ?.slice(4);
      const events = [
        { event_name: 'page_view', anonymous_id: 'anon-1', consent: GRANTED },
        { event_name: 'page_view', anonymous_id: 'anon-1', page: { url: `${ORIGIN}/p2` }, consent: GRANTED },
      ];

      // (a) No _ga yet: the gateway derives one; both events carry it; GA4 is sent it; the answer sets it.
      const made = await post(events);
      assert.equal(made.statusCode, 200);
      const cookie = gaSet(made);
      const id = gaClientIdOf(cookie);
      assert.ok(id, `a _ga in gtag's format: ${cookie}`);
      assert.equal(id, pseudonymousId('anon-1'));
      assert.match(cookie ?? '', /^GA1\.1\./, 'the index of shop.example');
      for (const { event, fields } of published()) {
        assert.equal(event.campaign?.ga_client_id, id);
        assert.equal(clientIdOf(event), id);
        assert.equal(event.anonymous_id, 'anon-1', 'our anonymous id is unchanged');
        assert.match(fields ?? '', /campaign\.ga_client_id/);
      }
      // The next page sends our cookie back: the same client.
      const again = await post(events, `_ga=${cookie}`);
      assert.equal(gaSet(again), cookie);
      assert.equal(clientIdOf(published()[0]?.event as StoredEvent), id);

      // (b) A gtag-like script set _ga first: we read theirs, send it, and re-affirm it as it is.
      const gtag = 'GA1.2.1874934510.1700000001';
      const theirs = await post(events, `_ga=${gtag}; other=1`);
      assert.equal(gaSet(theirs), gtag);
      for (const { event } of published()) assert.equal(clientIdOf(event), '1874934510.1700000001');

      // Consent refused: the cookie is not read into the events, and the answer expires it.
      const refused = await post(
        [{ event_name: 'page_view', anonymous_id: 'anon-1', consent: { analytics: 'denied' } }],
        `_ga=${gtag}`,
      );
      assert.equal(published()[0]?.event.campaign?.ga_client_id, undefined);
      assert.equal(clientIdOf(published()[0]?.event as StoredEvent), 'anon-1');
      assert.match(
        (refused.headers['set-cookie'] ?? []).find((l) => l.startsWith('_ga=')) ?? '',
        /^_ga=; .*Max-Age=0;/,
      );
      // Consent unknown: neither read nor set, nor expired.
      const unknown = await post([{ event_name: 'page_view', anonymous_id: 'anon-1' }], `_ga=${gtag}`);
      assert.equal(published()[0]?.event.campaign?.ga_client_id, undefined);
      assert.equal(gaSet(unknown), undefined);
      // A producer's own campaign.ga_client_id stands.
      await post([{ ...events[0], campaign: { ga_client_id: '5.6' } }], `_ga=${gtag}`);
      assert.equal(clientIdOf(published()[0]?.event as StoredEvent), '5.6');
    } finally {
      await g.close();
    }
  });
});
