/**
 * URLs the models write keep no personal data or secrets (issue #61, docs/sessions.md "URLs in
 * the models"), on the BigQuery emulator: `cleanUrlSql` over a table of URLs, and a session whose
 * first page carried `?email=…&token=…`. Campaign parameters and click ids are kept.
 */
import assert from 'node:assert/strict';
import { modelOptions } from '../../core/models/models.ts';
import { cleanUrlSql, REDACTED } from '../../core/models/page-url.ts';
import { sessionsRunSql } from '../../core/models/sessions.ts';
import { plan } from '../../core/plan.ts';
import { storeConfig } from '../../core/store/store.ts';
import { testSettings } from '../storage/support.ts';
import { type ModelsWarehouse, modelsWarehouse, queryRows, storedRow } from './models-support.ts';

const R = REDACTED;
const SHOP = 'https://shop.example';

/** Parameter names taken for secrets or personal data: their values go, whatever they are. */
const SECRET_NAMES = [
  'token',
  'access_token',
  'id_token',
  'key',
  'api_key',
  'apiKey',
  'X-Api-Key',
  'client_secret',
  'password',
  'pwd',
  'auth',
  'Authorization',
  'session',
  'session_id',
  'sessionid',
  'sid',
  'code',
  'sig',
  'signature',
  'email',
  'Email',
  'e_mail',
  'phone',
  'tel',
  'mobile',
];

/** [URL as sent, URL as the models write it]. */
const CASES: readonly (readonly [string, string])[] = [
  // The red team's landing page.
  [
    `${SHOP}/welcome?email=ann%40example.com&token=s3cr3t&utm_source=newsletter&utm_medium=email&gclid=Cj0KCQiA&fbclid=IwAR2x`,
    `${SHOP}/welcome?email=${R}&token=${R}&utm_source=newsletter&utm_medium=email&gclid=Cj0KCQiA&fbclid=IwAR2x`,
  ],
  ...SECRET_NAMES.map((name) => [`${SHOP}/?${name}=v4lue&page=2`, `${SHOP}/?${name}=${R}&page=2`] as const),
  // Kept: campaigns, click ids, and values that look like neither an address nor a phone number.
  [
    `${SHOP}/search?q=shoes&page=2&date=2026-11-24&id=12345678&keyword=red&utm_term=running&utm_campaign=nov-24&gbraid=0AAAAA&wbraid=CjkK&msclkid=a1b2c3&ttclid=E.C.P`,
    `${SHOP}/search?q=shoes&page=2&date=2026-11-24&id=12345678&keyword=red&utm_term=running&utm_campaign=nov-24&gbraid=0AAAAA&wbraid=CjkK&msclkid=a1b2c3&ttclid=E.C.P`,
  ],
  // An e-mail address under any name, plain or encoded, in the query or the path.
  [`${SHOP}/reset?to=ann@example.com&next=%2Faccount`, `${SHOP}/reset?to=${R}&next=%2Faccount`],
  [`${SHOP}/?utm_content=ann%2Btag%40example.co.uk`, `${SHOP}/?utm_content=${R}`],
  [`${SHOP}/u/ann@example.com/orders`, `${SHOP}/u/${R}/orders`],
  // A phone number under any name: international, national (leading 0), North American.
  [`${SHOP}/?ref=%2B33%206%2012%2034%2056%2078&n=1`, `${SHOP}/?ref=${R}&n=1`],
  [`${SHOP}/?p=06+12+34+56+78`, `${SHOP}/?p=${R}`],
  [`${SHOP}/?c=0612345678#top`, `${SHOP}/?c=${R}#top`],
  [`${SHOP}/?p=(555)%20123-4567`, `${SHOP}/?p=${R}`],
  [`${SHOP}/?a=%2B33612345678&b=%2B4915112345678`, `${SHOP}/?a=${R}&b=${R}`],
  // The fragment's parameters too (an OAuth implicit grant's token), and a URL's user and password.
  [
    'https://app.example/callback#access_token=abc.def&state=xyz',
    `https://app.example/callback#access_token=${R}&state=xyz`,
  ],
  ['https://bob:hunter2@shop.example/cart', `${SHOP}/cart`],
  [`${SHOP}/shoes/red`, `${SHOP}/shoes/red`],
];

describe('models: URLs the models write keep no personal data or secrets (issue #61)', function () {
  this.timeout(60_000);
  const settings = testSettings();
  const p = plan(settings);
  let warehouse: ModelsWarehouse;
  before(async () => {
    warehouse = await modelsWarehouse(p, settings.project);
  });
  after(() => warehouse?.close());

  it('redacts secret-named parameters, e-mail addresses and phone numbers; keeps campaigns and click ids', async () => {
    const got = await queryRows(
      warehouse.bigquery,
      `SELECT i, ${cleanUrlSql('u')} AS url FROM UNNEST(@urls) AS u WITH OFFSET AS i ORDER BY i`,
      { urls: CASES.map(([sent]) => sent) },
    );
    assert.deepEqual(
      got.map((r) => r['url']),
      CASES.map(([, written]) => written),
    );
    const [none] = await queryRows(
      warehouse.bigquery,
      `SELECT ${cleanUrlSql('CAST(NULL AS STRING)')} AS url`,
    );
    assert.deepEqual(none, { url: null });
  });

  it('sessions.landing_page: a first page with ?email=…&token=… is written without them', async () => {
    const time = '2026-11-24T08:00:00.000Z';
    const row = storedRow(storeConfig(settings, p), 1, time, {
      event_name: 'page_view',
      anonymous_id: 'browser-1',
      page: {
        url: `${SHOP}/welcome?email=ann%40example.com&token=s3cr3t&utm_source=newsletter&gclid=Cj0KCQiA`,
      },
    });
    await warehouse.bigquery.dataset(p.dataset).table('events').insert([row], { raw: true });
    const run = sessionsRunSql(modelOptions(settings), new Date(Date.parse(time) + 600_000));
    await warehouse.bigquery.query({
      query: run.sql,
      params: run.params,
      types: { conversions: ['STRING'] },
    });
    const sessions = await queryRows(
      warehouse.bigquery,
      `SELECT visitor_id, landing_page FROM \`${settings.project}.${p.dataset}.sessions\``,
    );
    assert.deepEqual(sessions, [
      {
        visitor_id: 'browser-1',
        landing_page: `${SHOP}/welcome?email=${R}&token=${R}&utm_source=newsletter&gclid=Cj0KCQiA`,
      },
    ]);
  });
});
