/**
 * insertAll over our own HTTP client (adapters/bigquery-rest.ts), against a loopback server that
 * answers as BigQuery's REST API does: the request on the wire (path, query, body untouched),
 * per-row errors mapped back, whole-request failures with the API's message, retries of what
 * Google's client retries, a 401 that drops the cached credentials, and a BigQuery client's own
 * endpoint and project used as they are (no credentials over plaintext, as the client sends none).
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { BigQuery } from '@google-cloud/bigquery';
import { createRestInsertAll, insertAllThrough } from '../../adapters/bigquery-rest.ts';
import type { CallCredentials } from '../../adapters/grpc-unary.ts';
import { closeServer, listenOnLoopback } from '../support/loopback.ts';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Answers each request with the next of `answers` (the last one repeats), recording them. */
async function api(answers: { status: number; body: string }[]) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const a = answers[Math.min(seen.length, answers.length) - 1] as { status: number; body: string };
      res.writeHead(a.status, { 'content-type': 'application/json; charset=UTF-8' }).end(a.body);
    });
  });
  const url = await listenOnLoopback(server);
  return { url, seen, close: () => closeServer(server) };
}

const ok = { status: 200, body: '{"kind":"bigquery#tableDataInsertAllResponse"}' };
const rows = [
  { insertId: 'a', json: { event_id: 'a', reason: 'literal {{projectId}} stays' } },
  { insertId: 'b', json: { event_id: 'b' } },
];
const noWait = async () => {};

describe('bigquery-rest: insertAll over our own HTTP client', () => {
  it('sends one raw insertAll body, untouched and all-or-nothing, to the table’s path', async () => {
    const s = await api([ok]);
    try {
      const insert = createRestInsertAll({
        baseUrl: `${s.url}/bigquery/v2/`,
        project: 'p-1',
        dataset: 'events',
      });
      assert.deepEqual(await insert('deliveries', rows), []);
      assert.equal(s.seen.length, 1);
      const [call] = s.seen;
      assert.equal(call?.method, 'POST');
      assert.equal(
        call?.url,
        '/bigquery/v2/projects/p-1/datasets/events/tables/deliveries/insertAll?prettyPrint=false',
      );
      assert.equal(call?.headers['content-type'], 'application/json');
      assert.equal(call?.headers.authorization, undefined);
      assert.deepEqual(JSON.parse(call?.body ?? ''), {
        skipInvalidRows: false,
        ignoreUnknownValues: false,
        rows,
      });
      // Texts the batcher already serialised are the body as they are.
      const texts = rows.map((r) => JSON.stringify(r));
      await insert('deliveries', rows, texts);
      assert.equal(
        s.seen[1]?.body,
        `{"skipInvalidRows":false,"ignoreUnknownValues":false,"rows":[${texts.join(',')}]}`,
      );
    } finally {
      s.close();
    }
  });

  it('maps insertErrors to row rejections, and fails a request it cannot pin to rows or read', async () => {
    const s = await api([
      {
        status: 200,
        body: JSON.stringify({
          insertErrors: [
            { index: 1, errors: [{ reason: 'invalid', message: 'no such field: x' }] },
            { index: 0, errors: [{ reason: 'stopped', message: '' }] },
          ],
        }),
      },
      {
        status: 200,
        body: JSON.stringify({ insertErrors: [{ errors: [{ reason: 'invalid', message: 'what' }] }] }),
      },
      {
        status: 200,
        body: JSON.stringify({ insertErrors: [{ index: 7, errors: [{ reason: 'invalid' }] }] }),
      },
      { status: 200, body: '<html>proxy error</html>' },
    ]);
    try {
      const insert = createRestInsertAll({ baseUrl: s.url, project: 'p', dataset: 'events' });
      assert.deepEqual(await insert('deliveries', rows), [
        { index: 1, reason: 'invalid', message: 'no such field: x' },
        { index: 0, reason: 'stopped', message: '' },
      ]);
      await assert.rejects(insert('deliveries', rows), /unknown rows: invalid: what/);
      await assert.rejects(insert('deliveries', rows), /unknown rows: invalid/);
      await assert.rejects(insert('deliveries', rows), /unexpected answer/);
    } finally {
      s.close();
    }
  });

  it('fails a refused request with the API’s message, without retrying what will not change', async () => {
    const s = await api([
      {
        status: 404,
        body: '{"error":{"code":404,"message":"Not found: Table p:events.missing","status":"NOT_FOUND"}}',
      },
    ]);
    try {
      const insert = createRestInsertAll({ baseUrl: s.url, project: 'p', dataset: 'events', sleep: noWait });
      await assert.rejects(
        insert('missing', rows),
        /insertAll into missing answered HTTP 404: Not found: Table p:events\.missing/,
      );
      assert.equal(s.seen.length, 1);
    } finally {
      s.close();
    }
  });

  it('retries 503, 429 and a refused connection as Google’s client does, up to four attempts', async () => {
    const s = await api([
      { status: 503, body: '{"error":{"message":"backend error"}}' },
      { status: 429, body: '{"error":{"message":"rate"}}' },
      ok,
    ]);
    const waits: number[] = [];
    try {
      const insert = createRestInsertAll({
        baseUrl: s.url,
        project: 'p',
        dataset: 'events',
        sleep: async (ms) => {
          waits.push(ms);
        },
      });
      assert.deepEqual(await insert('events', rows), []);
      assert.equal(s.seen.length, 3);
      assert.deepEqual(waits, [100, 200]);
    } finally {
      s.close();
    }
    const down = await api([{ status: 500, body: 'internal' }]);
    try {
      const insert = createRestInsertAll({
        baseUrl: down.url,
        project: 'p',
        dataset: 'events',
        sleep: noWait,
      });
      await assert.rejects(insert('events', rows), /answered HTTP 500: internal/);
      assert.equal(down.seen.length, 4);
    } finally {
      down.close();
    }
    // store's writer makes one attempt: Pub/Sub's redelivery is its retry.
    const once = await api([{ status: 503, body: '{"error":{"message":"backend error"}}' }, ok]);
    try {
      const insert = createRestInsertAll({ baseUrl: once.url, project: 'p', dataset: 'events', attempts: 1 });
      await assert.rejects(insert('events', rows), /answered HTTP 503: backend error/);
      assert.equal(once.seen.length, 1);
    } finally {
      once.close();
    }
    // Nothing listens: a network error, retried, then reported.
    const gone = await api([ok]);
    gone.close();
    const insert = createRestInsertAll({ baseUrl: gone.url, project: 'p', dataset: 'events', sleep: noWait });
    await assert.rejects(insert('events', rows), /insertAll into events failed: .*ECONNREFUSED/);
  });

  it('sends the credentials’ headers, and on a 401 drops them and tries once more with fresh ones', async () => {
    const s = await api([
      { status: 401, body: '{"error":{"message":"Request had invalid authentication credentials."}}' },
      ok,
    ]);
    let token = 'stale';
    let dropped = 0;
    const credentials: CallCredentials = {
      headers: () => ({ authorization: `Bearer ${token}` }),
      invalidate: () => {
        dropped++;
        token = 'fresh';
      },
    };
    try {
      const insert = createRestInsertAll({ baseUrl: s.url, project: 'p', dataset: 'events', credentials });
      assert.deepEqual(await insert('events', rows), []);
      assert.deepEqual(
        s.seen.map((c) => c.headers.authorization),
        ['Bearer stale', 'Bearer fresh'],
      );
      assert.equal(dropped, 1);
    } finally {
      s.close();
    }
    const always = await api([{ status: 401, body: '{"error":{"message":"no"}}' }]);
    try {
      const insert = createRestInsertAll({
        baseUrl: always.url,
        project: 'p',
        dataset: 'events',
        credentials,
      });
      await assert.rejects(insert('events', rows), /answered HTTP 401: no/);
      assert.equal(always.seen.length, 2);
    } finally {
      always.close();
    }
  });

  it('uses a BigQuery client’s endpoint and project as the client would, sending no credentials over plaintext', async () => {
    const s = await api([ok]);
    const saved = process.env['BIGQUERY_EMULATOR_HOST'];
    process.env['BIGQUERY_EMULATOR_HOST'] = s.url;
    try {
      const client = new BigQuery({ projectId: 'from-client' });
      assert.deepEqual(await insertAllThrough(client, 'ds')('t', rows), []);
      // The client itself sends the same path to the same place.
      await client.dataset('ds').table('t').request({ method: 'POST', uri: '/insertAll', body: '{}' });
      assert.deepEqual(
        s.seen.map((c) => c.url),
        [
          '/projects/from-client/datasets/ds/tables/t/insertAll?prettyPrint=false',
          '/projects/from-client/datasets/ds/tables/t/insertAll?prettyPrint=false',
        ],
      );
      assert.equal(s.seen[0]?.headers.authorization, undefined);
    } finally {
      if (saved === undefined) delete process.env['BIGQUERY_EMULATOR_HOST'];
      else process.env['BIGQUERY_EMULATOR_HOST'] = saved;
      s.close();
    }
  });
});
