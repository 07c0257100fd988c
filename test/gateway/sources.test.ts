/**
 * The source catalogue (sources/*.yaml) through the gateway's translator endpoint: every
 * source's translator, as `eventbus source add` makes it (with `--consent ads,analytics`),
 * takes its vendor's sample as the vendor sends it (content type, signature under a test
 * secret, a token in the URL where the vendor can be given only a URL) and publishes a valid
 * event: the catalogue event, the vendor's id as event_id, the value in major units (a JPY 500 is
 * 500), the GA4 client id where the payload carries one, and the consent granted. An unsigned
 * body is refused where the vendor signs.
 */
import assert from 'node:assert/strict';
import { SOURCE_CASES } from '../support/source-cases.ts';
import { sourceCatalogue } from '../support/source-catalogue.ts';
import { SHAPE_CASES } from '../support/source-shape-cases.ts';
import { catalogueByName, startCatalogueGateway } from './catalogue-gateway.ts';
import { type FakePublisher, post, type TestGateway } from './support.ts';

interface Published {
  event_name: string;
  event_id: string;
  anonymous_id?: string;
  consent?: Record<string, string>;
  user?: { email?: string; external_id?: string };
  event_data: Record<string, unknown>;
}

describe('gateway: the source catalogue', () => {
  const catalogue = sourceCatalogue();
  const bySource = catalogueByName();
  let g: TestGateway;
  let pub: FakePublisher;
  before(async () => {
    ({ g, pub } = await startCatalogueGateway({ consent: ['ads', 'analytics'] }));
  });
  after(() => g.close());

  it('has a sample for every source of the catalogue', () => {
    assert.deepEqual(
      [...new Set(SOURCE_CASES.map((c) => c.source))].sort(),
      catalogue.map((s) => s.name).sort(),
    );
  });

  const shapes = new Set<unknown>(SHAPE_CASES);
  for (const c of [...SOURCE_CASES, ...SHAPE_CASES]) {
    it(`${c.source}: ${c.title}`, async () => {
      const source = bySource.get(c.source);
      assert.ok(source);
      const now = Math.floor(Date.now() / 1000);
      const body = c.body(now);
      const token = source.auth === 'signature' ? undefined : await g.mint([`translate:${c.source}`]);
      const url = `${g.url}/v1/translators/${c.source}${source.auth === 'url_token' ? `/${token}` : ''}`;
      const headers = {
        'content-type': c.contentType,
        ...(source.auth === 'token' ? { authorization: `Bearer ${token}` } : {}),
        ...(await c.headers(body, url, now)),
      };
      const before = pub.calls.length;
      // A library (Snowplow's tracker) makes up its event id, and answers it.
      const libraryId = c.library ? await c.library(g.url, token ?? '') : undefined;
      if (!c.library) {
        const a = await post(url, body, headers, true);
        if (c.expect.refused) {
          assert.equal(a.status, 400, JSON.stringify(a.body));
          assert.match(JSON.stringify(a.body), c.expect.refused);
          assert.equal(pub.calls.length, before, 'nothing published');
          return;
        }
        assert.equal(a.status, 200, JSON.stringify(a.body));
      }
      const events = pub.calls
        .slice(before)
        .flatMap((call) => call.messages.map((m) => JSON.parse(m.data.toString()) as Published));
      const e = events[0];
      assert.ok(e, 'one event published');
      assert.equal(e.event_name, c.expect.event_name);
      if (c.expect.event_id) assert.equal(e.event_id, c.expect.event_id);
      if (libraryId) assert.equal(e.event_id, libraryId);
      if (c.expect.email) assert.equal(e.user?.email, c.expect.email);
      if (c.expect.external_id !== undefined) assert.equal(e.user?.external_id ?? null, c.expect.external_id);
      if (c.expect.value !== undefined) assert.equal(e.event_data['value'], c.expect.value);
      if (c.expect.currency) assert.equal(e.event_data['currency'], c.expect.currency);
      assert.equal(e.anonymous_id, c.expect.ga4_client_id);
      assert.equal(e.consent?.['ads'], 'granted');
      if (shapes.has(c)) {
        // The vendor's retry: the same delivery again (a new signature, the same body) folds.
        const again = pub.calls.length;
        const retried = await post(
          url,
          body,
          { 'content-type': c.contentType, ...(await c.headers(body, url, now)) },
          true,
        );
        assert.equal(retried.status, 200, JSON.stringify(retried.body));
        const second = pub.calls
          .slice(again)
          .flatMap((call) => call.messages.map((m) => JSON.parse(m.data.toString()) as Published));
        assert.equal(second[0]?.event_id, e.event_id, 'a retried delivery keeps its event id');
      }
      if (source.auth === 'signature') {
        const unsigned = await post(url, body, { 'content-type': c.contentType }, true);
        assert.equal(unsigned.status, 401);
      }
    });
  }
});
