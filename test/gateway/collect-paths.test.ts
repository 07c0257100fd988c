/**
 * The default paths of GA4's Measurement Protocol and Snowplow's trackers (gateway/collect-paths.ts,
 * docs/senders.md "Default paths"), served by the catalogue's `ga4-mp` and `snowplow` translators as
 * `eventbus source add` makes them: GA4's request as its docs send it (host changed) with a token as
 * its api_secret, answered 204 and its measurement_id kept; the validation server's messages; the
 * Node tracker as shipped posting to its default path with only its endpoint changed; a page's
 * write key as the tracker's app id; the docs' pixel answered with a GIF; CORS for credentialed
 * trackers. Samples and their provenance: test/fixtures/sources/SOURCES.md.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPageView, buildSelfDescribingEvent, newTracker } from '@snowplow/node-tracker';
import { sourceTranslator } from '../../core/translate/sources.ts';
import { sourceCatalogue } from '../support/source-catalogue.ts';
import {
  FakePublisher,
  fixedTranslators,
  loggingGateway,
  ORIGIN,
  post,
  reasonOf,
  startTestGateway,
  type TestGateway,
} from './support.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/sources');
const GA4_BODY = readFileSync(join(FIXTURES, 'ga4-mp/campaign-details.json'), 'utf8');
const PIXEL_QUERY = readFileSync(join(FIXTURES, 'snowplow/pixel-page-view.txt'), 'utf8').trim();
const VIEWED_PRODUCT = JSON.parse(readFileSync(join(FIXTURES, 'snowplow/viewed-product.json'), 'utf8')) as {
  data: Record<string, string>[];
};

interface Published {
  event_name: string;
  event_id: string;
  anonymous_id?: string;
  page?: { url?: string; title?: string };
  device?: { ip?: string; user_agent?: string };
  event_data: Record<string, unknown>;
}

describe('gateway: the default paths of GA4 and Snowplow senders', () => {
  const catalogue = sourceCatalogue();
  const spec = (name: string) => {
    const source = catalogue.find((s) => s.name === name);
    assert.ok(source, name);
    return sourceTranslator(source, { consent: ['ads', 'analytics'] }).spec;
  };
  let g: TestGateway;
  let pub: Awaited<ReturnType<typeof loggingGateway>>['pub'];
  let refusals: () => Record<string, unknown>[];
  before(async () => {
    ({ g, pub, refusals } = await loggingGateway({
      translators: fixedTranslators({ 'ga4-mp': spec('ga4-mp'), snowplow: spec('snowplow') }),
    }));
  });
  after(() => g.close());
  const since = (n: number) =>
    pub.calls.slice(n).flatMap((c) =>
      c.messages.map((m) => ({
        event: JSON.parse(m.data.toString()) as Published & { invalid_call?: unknown },
        attributes: m.attributes ?? {},
      })),
    );

  describe('GA4 Measurement Protocol', () => {
    /** The docs' request: fetch with a string body (text/plain), the ids in the query. */
    const collect = (path: string, query: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${g.url}${path}?${query}`, { method: 'POST', body, headers });

    it("takes GA4's documented request with a token as api_secret: 204, no body, measurement_id kept", async () => {
      const token = await g.mint(['translate:ga4-mp']);
      const before = pub.calls.length;
      const res = await collect('/mp/collect', `measurement_id=G-XXXXXXXXXX&api_secret=${token}`, GA4_BODY);
      assert.equal(res.status, 204);
      assert.equal(await res.text(), '');
      const [m] = since(before);
      assert.ok(m);
      assert.equal(m.event.event_name, 'campaign_details');
      assert.equal(m.event.anonymous_id, '123456.7654321');
      assert.equal(m.event.event_data['measurement_id'], 'G-XXXXXXXXXX');
      assert.equal(m.attributes['translator'], 'ga4-mp');
    });

    it('takes translate:* as a Bearer header would, and refuses a token of another scope', async () => {
      const wide = await g.mint(['translate:*']);
      assert.equal(
        (await collect('/mp/collect', `measurement_id=G-1&api_secret=${wide}`, GA4_BODY)).status,
        204,
      );
      const other = await g.mint(['translate:snowplow']);
      const res = await collect('/mp/collect', `measurement_id=G-1&api_secret=${other}`, GA4_BODY);
      assert.equal(res.status, 403);
      assert.match(await res.text(), /may not use translator ga4-mp/);
    });

    it('refuses a bad api_secret with 401 in the envelope, the secret redacted from the record', async () => {
      const res = await collect('/mp/collect', 'measurement_id=G-1&api_secret=ebt_nottoken', GA4_BODY);
      assert.equal(res.status, 401);
      const body = (await res.json()) as { error: { status: string } };
      assert.equal(body.error.status, 'UNAUTHENTICATED');
      const last = refusals().at(-1);
      assert.equal(last?.['path'], '/mp/collect');
      const logged = JSON.stringify(refusals());
      assert.doesNotMatch(logged, /ebt_nottoken/);
    });

    it('refuses an api_secret beside an Authorization header (one credential per request)', async () => {
      const token = await g.mint(['translate:ga4-mp']);
      const res = await collect('/mp/collect', `api_secret=${token}`, GA4_BODY, {
        authorization: `Bearer ${token}`,
      });
      assert.equal(res.status, 401);
      assert.match(await res.text(), /exactly one credential/);
    });

    it('keeps a refused event aside (invalid_events) and publishes the rest: 204 still', async () => {
      const token = await g.mint(['translate:ga4-mp']);
      const before = pub.calls.length;
      const body = JSON.stringify({
        client_id: '1.2',
        events: [
          { name: 'purchase', params: { currency: 'EUR', value: 3 } },
          { name: 'page_view', params: { page_location: 'https://shop.example/' } },
        ],
      });
      const res = await collect('/mp/collect', `measurement_id=G-1&api_secret=${token}`, body, {
        'content-type': 'application/json',
      });
      assert.equal(res.status, 204);
      const got = since(before);
      assert.deepEqual(
        got.map((m) => m.event.event_name ?? 'invalid'),
        ['page_view', 'invalid'],
      );
      assert.match(String(got[1]?.attributes['invalid']), /transaction_id/);
    });

    it('refuses a body that is not JSON in the envelope (400), where the live events show it', async () => {
      const token = await g.mint(['translate:ga4-mp']);
      const res = await collect('/mp/collect', `api_secret=${token}`, '{"events": [');
      assert.equal(res.status, 400);
      assert.equal(
        reasonOf({ status: 400, headers: res.headers, body: await res.json() }),
        'UNREADABLE_PAYLOAD',
      );
    });

    it("answers /debug/mp/collect with GA4's validation messages and publishes nothing", async () => {
      const token = await g.mint(['translate:ga4-mp']);
      const before = pub.calls.length;
      const ok = await collect('/debug/mp/collect', `measurement_id=G-1&api_secret=${token}`, GA4_BODY);
      assert.equal(ok.status, 200);
      assert.deepEqual(await ok.json(), { validationMessages: [] });
      const bad = await collect(
        '/debug/mp/collect',
        `measurement_id=G-1&api_secret=${token}`,
        JSON.stringify({
          client_id: '1.2',
          events: [{ name: 'purchase', params: { currency: 'EUR', value: 3 } }],
        }),
      );
      const { validationMessages } = (await bad.json()) as {
        validationMessages: { fieldPath: string; description: string; validationCode: string }[];
      };
      assert.deepEqual(
        validationMessages.map((v) => [v.fieldPath, v.validationCode]),
        [['events[0].transaction_id', 'VALUE_REQUIRED']],
      );
      assert.equal(pub.calls.length, before, 'nothing published');
    });

    it('answers 405 to a GET, and 404 naming the source when the translator is missing', async () => {
      const get = await fetch(`${g.url}/mp/collect`);
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST, OPTIONS');
      const bare = await startTestGateway({
        publisher: new FakePublisher(),
        translators: fixedTranslators({}),
      });
      try {
        const token = await bare.mint(['translate:ga4-mp']);
        const res = await fetch(`${bare.url}/mp/collect?api_secret=${token}`, {
          method: 'POST',
          body: GA4_BODY,
        });
        assert.equal(res.status, 404);
        assert.match(await res.text(), /eventbus source add ga4-mp/);
      } finally {
        await bare.close();
      }
    });
  });

  describe('Snowplow trackers', () => {
    /** The Node tracker as shipped: only its endpoint (and a header it is configured with) set. */
    const track = async (
      customHeaders: Record<string, string>,
      appId: string,
      build: () => Parameters<ReturnType<typeof newTracker>['track']>[0],
    ) => {
      let failure: string | undefined;
      const tracker = newTracker(
        { namespace: 'sp', appId },
        {
          endpoint: g.url,
          customHeaders,
          bufferSize: 1,
          retryFailedRequests: false,
          onRequestFailure: (f) => {
            failure = `${f.status}: ${f.message}`;
          },
        },
      );
      const sent = tracker.track(build());
      await tracker.flush();
      // The tracker calls onRequestFailure on a later turn.
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { eid: sent?.['eid'] as string | undefined, failure };
    };

    it('@snowplow/node-tracker posts to its default path with a token in customHeaders', async () => {
      const token = await g.mint(['translate:snowplow']);
      const before = pub.calls.length;
      const ue = JSON.parse(
        Buffer.from(VIEWED_PRODUCT.data[0]?.['ue_px'] ?? '', 'base64').toString('utf8'),
      ) as {
        data: { schema: string; data: Record<string, unknown> };
      };
      const { eid, failure } = await track({ authorization: `Bearer ${token}` }, 'website', () =>
        buildSelfDescribingEvent({ event: ue.data }),
      );
      assert.equal(failure, undefined);
      const [m] = since(before);
      assert.ok(m && eid);
      assert.equal(m.event.event_name, 'snowplow_event');
      assert.equal(m.event.event_id, eid);
      assert.equal(m.event.event_data['app_id'], 'website');
      // A token is a server's: nothing of its request is the person's.
      assert.equal(m.attributes['sender'], 'translator');
    });

    it('maps a page view and a self-describing purchase (the documented schema) to standard events', async () => {
      const token = await g.mint(['translate:snowplow']);
      const before = pub.calls.length;
      const auth = { authorization: `Bearer ${token}` };
      const view = await track(auth, 'shop', () =>
        buildPageView({ pageUrl: 'https://shop.example/p', pageTitle: 'P' }),
      );
      const order = await track(auth, 'shop', () =>
        buildSelfDescribingEvent({
          event: {
            schema: 'iglu:io.eventbus/purchase/jsonschema/1-0-0',
            data: { transaction_id: 'o-1001', value: 42.5, currency: 'eur' },
          },
        }),
      );
      assert.equal(view.failure ?? order.failure, undefined);
      const got = since(before).map((m) => m.event);
      assert.deepEqual(
        got.map((e) => [e.event_name, e.event_id]),
        [
          ['page_view', view.eid],
          ['purchase', order.eid],
        ],
      );
      assert.equal(got[0]?.page?.title, 'P');
      assert.deepEqual(
        [got[1]?.event_data['transaction_id'], got[1]?.event_data['value'], got[1]?.event_data['currency']],
        ['o-1001', 42.5, 'EUR'],
      );
    });

    it('marks a purchase sent with a write key (no money allowance) unverified', async () => {
      const before = pub.calls.length;
      const { failure } = await track({ origin: ORIGIN }, g.key, () =>
        buildSelfDescribingEvent({
          event: {
            schema: 'iglu:io.eventbus/purchase/jsonschema/1-0-0',
            data: { transaction_id: 'o-1002', value: 10, currency: 'EUR' },
          },
        }),
      );
      assert.equal(failure, undefined);
      const [m] = since(before);
      assert.equal(m?.event.event_name, 'purchase');
      assert.equal(m?.attributes['unverified'], 'money');
    });

    it("takes a page's write key as the tracker's app id, shown on the events by its id only", async () => {
      const before = pub.calls.length;
      const { eid, failure } = await track({ origin: ORIGIN, 'user-agent': 'Mozilla/5.0 test' }, g.key, () =>
        buildPageView({ pageUrl: 'https://shop.example/p', pageTitle: 'P' }),
      );
      assert.equal(failure, undefined);
      const [m] = since(before);
      assert.ok(m && eid);
      assert.equal(m.event.event_name, 'page_view');
      assert.equal(m.event.event_id, eid);
      assert.equal(m.event.event_data['app_id'], `key:${g.key.slice(4, 16)}`);
      assert.doesNotMatch(JSON.stringify(m.event), /ebk_/);
      assert.equal(m.attributes['sender'], 'browser');
      assert.equal(m.event.device?.ip, '127.0.0.1');
    });

    it('refuses a tracker without a credential (401), and a key from another origin (403)', async () => {
      const none = await track({}, 'website', () => buildPageView({ pageUrl: 'https://shop.example/' }));
      assert.match(String(none.failure), /^401/);
      const elsewhere = await track({ origin: 'https://evil.example' }, g.key, () =>
        buildPageView({ pageUrl: 'https://shop.example/' }),
      );
      assert.match(String(elsewhere.failure), /^403/);
    });

    it('refuses two write keys in one body, or a key beside a header, as two credentials', async () => {
      const other = await g.mintKey();
      const body = {
        schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        data: [
          { e: 'pv', eid: crypto.randomUUID(), aid: g.key, url: 'https://shop.example/' },
          { e: 'pv', eid: crypto.randomUUID(), aid: other, url: 'https://shop.example/' },
        ],
      };
      const a = await post(`${g.url}/com.snowplowanalytics.snowplow/tp2`, body, { origin: ORIGIN });
      assert.equal(a.status, 401);
      // A key in aid beside a header credential is a second credential too.
      const token = await g.mint(['translate:snowplow']);
      const both = await post(
        `${g.url}/com.snowplowanalytics.snowplow/tp2`,
        { ...body, data: body.data.slice(0, 1) },
        { origin: ORIGIN, authorization: `Bearer ${token}` },
      );
      assert.equal(both.status, 401);
      assert.match(JSON.stringify(both.body), /exactly one credential/);
    });

    it('keeps no address when the tracker asks for server-side anonymisation (SP-Anonymous)', async () => {
      const before = pub.calls.length;
      const body = {
        schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        data: [{ e: 'pv', eid: crypto.randomUUID(), aid: g.key, url: 'https://shop.example/' }],
      };
      const a = await post(`${g.url}/com.snowplowanalytics.snowplow/tp2`, body, {
        origin: ORIGIN,
        'sp-anonymous': '*',
        'content-type': 'application/json; charset=UTF-8',
      });
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(a.headers.get('access-control-allow-credentials'), 'true');
      assert.equal(a.headers.get('access-control-allow-origin'), ORIGIN);
      const [m] = since(before);
      assert.equal(m?.event.device?.ip, undefined);
    });

    it("answers a credentialed tracker's preflight, allowing its headers and credentials", async () => {
      const res = await fetch(`${g.url}/com.snowplowanalytics.snowplow/tp2`, {
        method: 'OPTIONS',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, sp-anonymous',
        },
      });
      assert.equal(res.status, 204);
      assert.equal(res.headers.get('access-control-allow-origin'), ORIGIN);
      assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
      const elsewhere = await fetch(`${g.url}/v1/topics/events`, {
        method: 'OPTIONS',
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
      });
      assert.equal(elsewhere.headers.get('access-control-allow-credentials'), null);
    });

    it("answers the docs' pixel with a GIF, never cached, as a page view; each view its own event", async () => {
      const before = pub.calls.length;
      const url = `${g.url}/i?${PIXEL_QUERY}&key=${g.key}`;
      // An <img>: no Origin, the page in its Referer.
      const headers = { referer: `${ORIGIN}/newsletter`, 'user-agent': 'Mozilla/5.0 test' };
      const res = await fetch(url, { headers });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/gif');
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      const gif = Buffer.from(await res.arrayBuffer());
      assert.equal(gif.subarray(0, 6).toString(), 'GIF89a');
      assert.equal((await fetch(url, { headers })).status, 200);
      const got = since(before).map((m) => m.event);
      assert.equal(got.length, 2);
      assert.equal(got[0]?.event_name, 'page_view');
      assert.equal(got[0]?.page?.title, 'Root README');
      assert.equal(got[0]?.page?.url, 'http://github.com/snowplow/snowplow');
      assert.equal(got[0]?.event_data['app_id'], 'snowplow');
      assert.notEqual(got[0]?.event_id, got[1]?.event_id);
      assert.doesNotMatch(JSON.stringify(refusals()), /ebk_/);
    });

    it("lets a listed origin's page read the pixel's answer (CORS), as the JSON answers do", async () => {
      const res = await fetch(`${g.url}/i?${PIXEL_QUERY}&key=${g.key}`, { headers: { origin: ORIGIN } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), ORIGIN);
      assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
      assert.equal(res.headers.get('vary'), 'Origin');
      await res.arrayBuffer();
    });

    it('refuses a pixel without a credential, and a POST to it', async () => {
      assert.equal((await fetch(`${g.url}/i?${PIXEL_QUERY}`)).status, 401);
      const res = await fetch(`${g.url}/i`, { method: 'POST', body: '{}' });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'GET, OPTIONS');
    });
  });
});
