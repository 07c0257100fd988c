/**
 * Custom events and the translator endpoint end to end, as a business moves a spreadsheet export
 * over: an event definition (with a mapping to Meta's `Lead`) and a CSV translator are applied
 * with the CLI; a messy export (BOM, CRLF, quoted commas, decimal commas, a date pattern, one bad
 * row) is POSTed to `/v1/translators/quotes-csv`. Refused whole naming the row; with
 * `?partial=true` the good rows are stored, typed in the definition's view; sending the same
 * file again adds nothing to events_dedup; each stored quote reaches the Meta stand-in as `Lead`.
 * Producers see the definition at work on the plain endpoint too: a missing required field is
 * refused, and a near miss of the defined name is answered with a "did you mean".
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { eventbusIn, localBigQuery, startLocalCli, stopLocal } from '../support/local-start.ts';
import { until } from '../support/until.ts';

const RESOURCES = `
kind: EventDefinition
name: quote_requested
description: A visitor asked for a quote.
owner: sales-ops@acme.example
spec:
  fields:
    - { name: order_id, type: string, required: true }
    - { name: amount, type: number, required: true, minimum: 0 }
    - { name: requested_on, type: date, required: true }
    - { name: product, type: string }
  mappings:
    meta_capi:
      event: Lead
      fields:
        action_source: { const: system_generated }
        custom_data.value: { from: amount }
        custom_data.currency: { const: EUR }
---
kind: Translator
name: quotes-csv
description: The quotes export of the shop's back office.
spec:
  event: quote_requested
  format: { type: csv, delimiter: ",", header: true }
  key: [Order]
  fields:
    - { target: order_id, source: Order }
    - { target: user.email, source: E-Mail, transforms: [trim, lowercase] }
    - { target: amount, source: Amount, transforms: [{ decimal: "," }] }
    - { target: event_time, source: Date, transforms: [{ timestamp: "DD.MM.YYYY", zone: Europe/Berlin }] }
    - { target: requested_on, source: Date, transforms: [{ date: "DD.MM.YYYY" }] }
    - { target: product, source: Product }
    - { target: consent.ads, value: granted }
    - { target: consent.ad_user_data, value: granted }
`;

describe('end to end: a defined event and its CSV translator', function () {
  this.timeout(150000);
  let child: ChildProcess | undefined;
  let dataDir = '';
  const ports: Record<string, number> = {};
  let bigquery: BigQuery;
  const run = Date.now().toString(36);
  const csv = (rows: string[]) =>
    // fetch sends a string as UTF-8: the BOM arrives as EF BB BF, as spreadsheet exports write it.
    `\uFEFFOrder,E-Mail,Amount,Date,Product\r\n${rows.join('\r\n')}\r\n`;
  // Days before today as the export writes them (DD.MM.YYYY) and as BigQuery returns them: recent,
  // because Meta takes events of the last 7 days only.
  // Computed once, when the file loads: mocha loads every file before the first test runs, so a
  // date recomputed at assertion time may already be tomorrow's when a run crosses midnight UTC.
  const today = Date.now();
  const day = (back: number) => new Date(today - back * 86_400_000).toISOString().slice(0, 10);
  const german = (iso: string) => iso.split('-').reverse().join('.');
  // Three good rows and one whose amount is not a number.
  const rows = [
    `Q-${run}-1, Ana@Example.com ,"1.234,50",${german(day(1))},"Roof tiles, red"`,
    `Q-${run}-2,ben@example.com,"99,90",${german(day(2))},Gutter`,
    `Q-${run}-3,cy@example.com,abc,${german(day(3))},Window`,
    `Q-${run}-4,dee@example.com,"12,00",${german(day(4))},"Door ""Oak"""`,
  ];

  before(async () => {
    const local = await startLocalCli({ prefix: 'eventbus-translators-' });
    ({ child, dataDir } = local);
    Object.assign(ports, local.ports);
    bigquery = await localBigQuery(ports);
  });

  after(() => stopLocal(child, dataDir));

  const query = async <T>(sql: string): Promise<T[]> => (await bigquery.query({ query: sql }))[0] as T[];
  const eventbus = (...argv: string[]) => eventbusIn(dataDir)(...argv);
  const token = () => readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
  const post = (path: string, body: string, type: string) =>
    fetch(`http://127.0.0.1:${ports['gateway']}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token()}`, 'content-type': type },
      body,
    });

  it('applies the definition and the translator with the CLI, and makes the typed view', async () => {
    const file = join(dataDir, 'quotes.yaml');
    writeFileSync(file, RESOURCES);
    const out = await eventbus('apply', '-f', file);
    assert.match(out, /EventDefinition\/quote_requested.*created 1\.0/);
    assert.match(out, /Translator\/quotes-csv.*created 1\.0/);
    const cols = await query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM events.INFORMATION_SCHEMA.COLUMNS WHERE table_name = 'quote_requested'`,
    );
    const types = Object.fromEntries(cols.map((c) => [c.column_name, c.data_type]));
    assert.equal(types['amount'], 'FLOAT64');
    assert.equal(types['requested_on'], 'DATE');
    assert.equal(types['definition_version'], 'STRING');
  });

  it('refuses the export whole, naming the bad row, and publishes nothing', async () => {
    // The gateway reads the registry on the request path (a copy at most 30 s old).
    const res = await until(
      'the translator live on the gateway',
      async () => {
        const r = await post('/v1/translators/quotes-csv', csv(rows), 'text/csv');
        return r.status === 404 ? undefined : r;
      },
      45000,
    );
    assert.equal(res.status, 400);
    const body = (await res.json()) as {
      error: { message: string; details: { fieldViolations?: { field: string; description: string }[] }[] };
    };
    assert.match(body.error.message, /1 of 4 row\(s\) are invalid; nothing was published/);
    const violations = body.error.details.flatMap((d) => d.fieldViolations ?? []);
    assert.equal(violations.length, 1, JSON.stringify(violations));
    assert.match(violations[0]?.field ?? '', /^rows\[2\]\.amount$/);
  });

  it('with ?partial=true stores the good rows typed, and a resend adds nothing', async () => {
    const first = await post('/v1/translators/quotes-csv?partial=true', csv(rows), 'text/csv');
    assert.equal(first.status, 200, await first.clone().text());
    const answer = (await first.json()) as { messageIds: (string | null)[]; invalidRows: number };
    assert.equal(answer.messageIds.length, 4);
    assert.equal(answer.messageIds[2], null);
    assert.equal(answer.invalidRows, 1);
    const typed = await until(
      'three rows in the typed view',
      async () => {
        const r = await query<{
          order_id: string;
          amount: number;
          requested_on: { value: string };
          product: string;
          email: string;
          definition_version: string;
        }>(
          `SELECT order_id, amount, requested_on, product, user.email AS email, definition_version
           FROM events.quote_requested WHERE STARTS_WITH(order_id, 'Q-${run}-') ORDER BY order_id`,
        );
        return r.length >= 3 ? r : undefined;
      },
      60000,
    );
    assert.deepEqual(
      typed.map((r) => [
        r.order_id,
        r.amount,
        r.requested_on.value,
        r.product,
        r.email,
        r.definition_version,
      ]),
      [
        [`Q-${run}-1`, 1234.5, day(1), 'Roof tiles, red', 'ana@example.com', 'quote_requested@1.0'],
        [`Q-${run}-2`, 99.9, day(2), 'Gutter', 'ben@example.com', 'quote_requested@1.0'],
        [`Q-${run}-4`, 12, day(4), 'Door "Oak"', 'dee@example.com', 'quote_requested@1.0'],
      ],
    );

    const again = await post('/v1/translators/quotes-csv?partial=true', csv(rows), 'text/csv');
    assert.equal(again.status, 200);
    const ids = ((await again.json()) as { messageIds: (string | null)[] }).messageIds;
    assert.equal(ids.length, 4);
    // Both copies are stored (insertId de-duplication is best effort); events_dedup folds them.
    await until(
      'the resend stored',
      async () => {
        const [r] = await query<{ n: number }>(
          `SELECT COUNT(*) AS n FROM events.events WHERE event_name = 'quote_requested' AND JSON_VALUE(event_data, '$.order_id') LIKE 'Q-${run}-%'`,
        );
        return (r?.n ?? 0) >= 3 ? true : undefined;
      },
      30000,
    );
    const [dedup] = await query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM events.events_dedup WHERE event_name = 'quote_requested' AND JSON_VALUE(event_data, '$.order_id') LIKE 'Q-${run}-%'`,
    );
    assert.equal(dedup?.n, 3);
  });

  it('sends each stored quote to the Meta stand-in as Lead, from the definition’s mapping', async () => {
    const leads = await until(
      'three Leads at the Meta stand-in',
      async () => {
        const r = (await (await fetch(`http://127.0.0.1:${ports['receiver']}/received.json`)).json()) as {
          received: {
            destination: string;
            body: { data?: { event_name: string; custom_data?: unknown }[] };
          }[];
        };
        const mine = r.received
          .filter((x) => x.destination === 'meta')
          .flatMap((x) => x.body.data ?? [])
          .filter((e) => e.event_name === 'Lead');
        // The resend is forwarded too (Meta folds it by event_id): count distinct quotes.
        const values = new Set(mine.map((e) => (e.custom_data as { value: number }).value));
        return values.size >= 3 ? mine : undefined;
      },
      60000,
    );
    const values = [...new Set(leads.map((e) => (e.custom_data as { value: number }).value))];
    assert.deepEqual(
      values.sort((a, b) => a - b),
      [12, 99.9, 1234.5],
    );
    assert.equal((leads[0]?.custom_data as { currency?: string } | undefined)?.currency, 'EUR');
  });

  it('validates a defined event on the plain endpoint, and answers a near miss with "did you mean"', async () => {
    const missing = await post(
      '/v1/topics/quote_requested',
      JSON.stringify({ order_id: `Q-${run}-9`, product: 'Fence' }),
      'application/json',
    );
    assert.equal(missing.status, 400);
    const text = await missing.text();
    assert.match(text, /"field":"amount"/);
    assert.match(text, /quote_requested@1\.0/);
    const typo = await post(
      '/v1/topics/events',
      JSON.stringify({ event_name: 'quote_requestd', amount: 3 }),
      'application/json',
    );
    assert.equal(typo.status, 400);
    assert.match(await typo.text(), /did you mean \\"quote_requested\\"/);
  });
});
