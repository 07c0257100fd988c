/** BigQuery emulator API: the server and malformed requests, through the real @google-cloud/bigquery client (and raw fetch where the wire matters). */
import assert from 'node:assert/strict';
import http from 'node:http';
import { BigQuery } from '@google-cloud/bigquery';
import { type Harness, P, startHarness } from './support/helpers.ts';

describe('BigQuery emulator API: the server and malformed requests', () => {
  let h: Harness;
  let bq: BigQuery;
  before(async () => {
    h = await startHarness(P);
    bq = h.bq;
  });
  after(() => h.stop());

  describe('server', () => {
    it('answers GET /health with {"status":"ok"}, its job latency and the jobs it cancelled', async () => {
      const res = await fetch(`${h.emulator.url}/health`);
      assert.equal(res.status, 200);
      assert.deepStrictEqual(await res.json(), { status: 'ok', jobLatencyMs: 0, cancelledJobs: 0 });
    });

    it('keeps an idle keep-alive connection open past Node’s 5 s default, as Google’s front ends do', async () => {
      // A client that reuses an idle socket the server has just closed gets ECONNRESET on a POST,
      // which the client libraries do not retry; the server must not be the one to close first.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const get = () =>
        new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
          const req = http.get(`${h.emulator.url}/health`, { agent }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
          });
          req.on('error', reject);
        });
      try {
        assert.deepEqual(await get(), { status: 200, reused: false });
        await new Promise((r) => setTimeout(r, 6_000));
        assert.deepEqual(await get(), { status: 200, reused: true }, 'the idle socket was closed');
      } finally {
        agent.destroy();
      }
    });

    it('serves the API with and without the /bigquery/v2 prefix', async () => {
      await bq.createDataset('prefix_check');
      for (const base of [`${h.emulator.url}/bigquery/v2`, h.emulator.url]) {
        const res = await fetch(`${base}/projects/${P}/datasets/prefix_check?prettyPrint=false`);
        assert.equal(res.status, 200);
        const body = (await res.json()) as { datasetReference: { datasetId: string } };
        assert.equal(body.datasetReference.datasetId, 'prefix_check');
      }
    });

    it('works with BIGQUERY_EMULATOR_HOST as the client reads it (no /bigquery/v2)', async () => {
      const saved = process.env['BIGQUERY_EMULATOR_HOST'];
      process.env['BIGQUERY_EMULATOR_HOST'] = h.emulator.url;
      try {
        const viaEnv = new BigQuery({ projectId: P });
        const [rows] = await viaEnv.query('SELECT 1 AS one');
        assert.deepStrictEqual(rows, [{ one: 1 }]);
      } finally {
        if (saved === undefined) delete process.env['BIGQUERY_EMULATOR_HOST'];
        else process.env['BIGQUERY_EMULATOR_HOST'] = saved;
      }
    });

    it('answers malformed JSON with 400 parseError and unknown paths with 404, in BigQuery error shape', async () => {
      const bad = await fetch(`${h.emulator.url}/projects/${P}/datasets`, { method: 'POST', body: '{nope' });
      assert.equal(bad.status, 400);
      const body = (await bad.json()) as {
        error: { code: number; errors: { reason: string; domain: string }[]; status: string };
      };
      assert.equal(body.error.code, 400);
      assert.equal(body.error.errors[0]?.reason, 'parseError');
      assert.equal(body.error.errors[0]?.domain, 'global');
      assert.equal(body.error.status, 'INVALID_ARGUMENT');
      const missing = await fetch(`${h.emulator.url}/projects/${P}/nothing`);
      assert.equal(missing.status, 404);
    });
  });

  describe('malformed requests', () => {
    const cases: [string, string, unknown][] = [
      ['POST', '/projects/test-project/datasets', { datasetReference: 'nope' }],
      ['POST', '/projects/test-project/datasets', []],
      [
        'POST',
        '/projects/test-project/datasets/v/tables',
        { tableReference: { tableId: 't1' }, schema: { fields: 'x' } },
      ],
      [
        'POST',
        '/projects/test-project/datasets/v/tables',
        { tableReference: { tableId: 't2' }, schema: { fields: [null] } },
      ],
      [
        'POST',
        '/projects/test-project/datasets/v/tables',
        { tableReference: { tableId: 't3' }, view: { query: 42 } },
      ],
      ['POST', '/projects/test-project/datasets/v/tables/events/insertAll', { rows: 'x' }],
      [
        'POST',
        '/projects/test-project/datasets/v/tables/events/insertAll',
        { rows: [null, 1, 'x', { json: [] }] },
      ],
      [
        'POST',
        '/projects/test-project/datasets/v/tables/events/insertAll',
        { rows: [{ json: { event_time: {} } }] },
      ],
      ['POST', '/projects/test-project/queries', {}],
      ['POST', '/projects/test-project/queries', { query: 7 }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT @x', queryParameters: 'x' }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT @x', queryParameters: [{ name: 'x' }] }],
      [
        'POST',
        '/projects/test-project/queries',
        {
          query: 'SELECT @x',
          queryParameters: [
            { name: 'x', parameterType: { type: 'INT64' }, parameterValue: { value: 'abc' } },
          ],
        },
      ],
      ['POST', '/projects/test-project/queries', { query: "SELECT ')" }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT (((' }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT CAST(1 AS)' }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT x FROM UNNEST(' }],
      ['POST', '/projects/test-project/queries', { query: 'SELECT 1', maxResults: 'abc' }],
      ['GET', '/projects/test-project/queries/nope?pageToken=zz', undefined],
      ['GET', '/projects/test-project/datasets/v/tables/events/data?maxResults=-1', undefined],
      [
        'GET',
        '/projects/test-project/datasets/v/tables/events/data?startIndex=99999999999999999999999',
        undefined,
      ],
      [
        'GET',
        '/projects/test-project/datasets/v/tables/events/data?pageToken=999999999999999999999',
        undefined,
      ],
      ['GET', '/projects/test-project/datasets/%E0%A4%A/tables', undefined],
      ['POST', '/projects/test-project/jobs', { configuration: 'x' }],
      [
        'PATCH',
        '/projects/test-project/datasets/v/tables/events',
        { schema: { fields: [{ name: 'event_id', type: 'INT64' }] } },
      ],
    ];
    for (const [method, path, body] of cases) {
      it(`answers ${method} ${path} ${JSON.stringify(body) ?? ''} with a 4xx (or per-row errors) in BigQuery's shape`, async () => {
        const res = await fetch(`${h.emulator.url}${path}`, {
          method,
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        const out = (await res.json()) as {
          error?: { code: number; errors: { reason: string }[] };
          insertErrors?: { errors: { reason: string }[] }[];
        };
        if (path.endsWith('/insertAll') && res.status === 200) {
          // Row-level mistakes are per-row insertErrors, as in BigQuery.
          assert.ok(
            out.insertErrors?.every((e) => e.errors[0]?.reason === 'invalid'),
            JSON.stringify(out),
          );
          return;
        }
        assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}: ${JSON.stringify(out)}`);
        assert.equal(out.error?.code, res.status);
        assert.ok(out.error?.errors[0]?.reason);
      });
    }
  });
});
