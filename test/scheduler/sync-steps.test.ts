/**
 * The sync job's steps (functions/schedule/sync-steps.ts, sync-destinations.ts) over injected
 * I/O: chunk 0 plans under the fence, later chunks send a page and commit only what was sent, a
 * Meta custom audience's answers are read with the Conversions API's retry codes (one list,
 * core/platforms/meta/responses.ts), a webhook's 4xx fails rows while a 5xx retries the page, and
 * a run given up is recorded. The warehouse is a fake (its pages in an earlier version's format:
 * key and row); the SQL runs on the emulator in test/scheduler/sync-state-privacy.test.ts and
 * test/e2e.
 */
import assert from 'node:assert/strict';
import type { Snapshot } from '../../adapters/registry.ts';
import type { InboundResponse, OutboundRequest } from '../../core/platforms/driver.ts';
import { META_API_VERSION } from '../../core/platforms/meta/driver.ts';
import { META_RESPONSES } from '../../core/platforms/meta/responses.ts';
import { classify } from '../../core/platforms/responses.ts';
import type { ChunkContext } from '../../functions/schedule/runner.ts';
import type { SyncJobDeps } from '../../functions/schedule/sync-runtime.ts';
import { syncJob } from '../../functions/schedule/syncs.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { SyncSpec } from '../../schemas/sync.ts';

const SETTINGS = {
  name: 'shop',
  project: 'shop-project',
  region: 'europe-west1',
  connections: [
    { id: 'crm', type: 'webhook', url: 'https://crm.example/sync' },
    {
      id: 'meta',
      type: 'meta_audience',
      url: 'https://graph.example',
      secrets: { access_token: 'META_TOKEN' },
    },
  ],
} as Settings;

const META = { meta_audience: { connection: 'meta', audience_id: '42' } };
const WEBHOOK = { webhook: { connection: 'crm' } };

/** A job over fakes: what it ran, sent, failed and recorded. */
function harness(destination: SyncSpec['destination'], answer: (r: OutboundRequest) => InboundResponse) {
  const spec = {
    model: 'SELECT email FROM crm.vip',
    primary_key: ['email'],
    mode: 'mirror',
    schedule: { manual: true },
    destination,
  } as SyncSpec;
  const log: string[] = [];
  const runs: Record<string, unknown>[] = [];
  const failed: Record<string, unknown>[] = [];
  const sent: OutboundRequest[] = [];
  const rows = [
    { __n: 1, __op: 'upsert', __key: '{"email":"a@example.com"}', __row: '{"email":"a@example.com"}' },
    { __n: 2, __op: 'delete', __key: '{"email":"b@example.com"}', __row: '{"email":"b@example.com"}' },
  ];
  const deps: SyncJobDeps = {
    settings: SETTINGS,
    ops: 'ops',
    syncs: async () =>
      ({ resources: new Map([['vip', { name: 'vip', version: '1', spec }]]) }) as unknown as Snapshot,
    secret: async (name) => (name === 'META_TOKEN' ? 'token' : undefined),
    send: async (r) => {
      sent.push(r);
      return answer(r);
    },
    assertSelect: async (sql) => {
      log.push(`assert ${sql}`);
    },
    run: async (sql) => {
      log.push(sql.split(' ').slice(0, 2).join(' '));
      return sql.startsWith('SELECT COUNT(*) AS planned') ? [{ planned: 2, removals: 1 }] : [];
    },
    page: async (_table, start) => (start > 0 ? [] : rows),
    writeFile: async () => 'created',
    publish: async () => undefined,
    writeRun: async (row) => {
      runs.push(row);
    },
    writeFailedRows: async (r) => {
      failed.push(...r.map((x) => x.row));
    },
  };
  const ctx = (cursor: unknown, chunk: number): ChunkContext => ({
    run: { kind: 'Sync', name: 'vip', slot: '2025-03-01T10:00:00Z', trigger: 'manual' },
    runId: 'Sync/vip/run',
    cursor,
    chunk,
    now: new Date('2025-03-01T10:00:00Z'),
    fence: async () => {
      log.push('fence');
    },
  });
  return { job: syncJob(deps), ctx, log, runs, failed, sent };
}

const cursor = {
  planned: 2,
  removals: 1,
  done: 0,
  pages: 0,
  sent: 0,
  removed: 0,
  failed: 0,
  started_at: '2025-03-01T10:00:00.000Z',
};
const json = (status: number, body: unknown): InboundResponse => ({
  kind: 'response',
  status,
  body: JSON.stringify(body),
  headers: {},
});

describe('sync job: the steps of a run', () => {
  it('chunk 0 checks the model, then plans under the fence and hands the counts on', async () => {
    const h = harness(WEBHOOK, () => json(200, {}));
    const result = await h.job.chunk(h.ctx(null, 0));
    assert.equal(h.log[0], 'assert SELECT * FROM (SELECT email FROM crm.vip)');
    assert.equal(h.log[1], 'fence');
    assert.equal(result.done, false);
    assert.deepEqual(result.summary, { planned: 2, removals: 1 });
    assert.equal((result.cursor as { planned: number }).planned, 2);
  });

  it('a page to a webhook is committed and the run recorded as succeeded', async () => {
    const h = harness(WEBHOOK, () => json(200, {}));
    const result = await h.job.chunk(h.ctx(cursor, 1));
    assert.equal(h.sent[0]?.headers['x-eventbus-sync-page'], 'Sync/vip/run#1');
    // The run's end empties the changes table, under the fence.
    assert.deepEqual(h.log, ['fence', 'MERGE ops.sync_state__vip', 'fence', 'TRUNCATE TABLE']);
    assert.equal(result.done, true);
    assert.deepEqual(result.summary, { planned: 2, sent: 1, removed: 1, failed: 0, pages: 1 });
    assert.deepEqual(
      h.runs.map((r) => [r['status'], r['rows_sent'], r['rows_removed'], r['chunks']]),
      [['succeeded', 1, 1, 2]],
    );
  });

  it('a webhook’s 4xx fails the page’s rows and commits nothing; a 5xx retries the page', async () => {
    const refused = harness(WEBHOOK, () => json(404, { error: 'no such list' }));
    await refused.job.chunk(refused.ctx(cursor, 1));
    assert.deepEqual(
      refused.failed.map((r) => [r['op'], r['reason']]),
      [
        ['upsert', 'HTTP 404: {"error":"no such list"}'],
        ['delete', 'HTTP 404: {"error":"no such list"}'],
      ],
    );
    assert.deepEqual(refused.log, ['fence', 'fence', 'TRUNCATE TABLE']);
    assert.equal(refused.runs[0]?.['status'], 'partial');
    const down = harness(WEBHOOK, () => json(503, {}));
    await assert.rejects(down.job.chunk(down.ctx(cursor, 1)), /page 1 to crm: HTTP 503/);
    assert.deepEqual([down.log, down.failed, down.runs], [[], [], []]);
  });

  it('a Meta audience: adds with POST, removes with DELETE, the token only in the URL sent', async () => {
    const h = harness(META, () => json(200, { num_received: 1 }));
    await h.job.chunk(h.ctx(cursor, 1));
    assert.deepEqual(
      h.sent.map((r) => `${r.method} ${r.redactedUrl}`),
      [
        `POST https://graph.example/${META_API_VERSION}/42/users?access_token=REDACTED`,
        `DELETE https://graph.example/${META_API_VERSION}/42/users?access_token=REDACTED`,
      ],
    );
    assert.match(h.sent[0]?.url ?? '', /access_token=token$/);
    assert.equal(h.runs[0]?.['status'], 'succeeded');
  });

  it('a Meta audience’s answers: the Conversions API’s retry codes retry the page, other 4xx codes fail its rows', async () => {
    for (const code of [1, 2, 4, 17, 32, 613, 80003, 80004]) {
      // The same list as the Conversions API's answers.
      const capi = classify(META_RESPONSES, json(400, { error: { code, message: 'x' } }), {
        destination: { id: 'm', type: 'meta_capi' },
        secrets: {},
        now: new Date(),
      });
      assert.equal(capi.status, 'retry', `CAPI code ${code}`);
      const h = harness(META, () => json(400, { error: { code, message: 'slow down' } }));
      await assert.rejects(h.job.chunk(h.ctx(cursor, 1)), /audience 42: HTTP 400 slow down/, `code ${code}`);
    }
    const refused = harness(META, () => json(400, { error: { code: 100, message: 'Invalid parameter' } }));
    await refused.job.chunk(refused.ctx(cursor, 1));
    assert.deepEqual(
      refused.failed.map((r) => r['reason']),
      ['Meta: Invalid parameter', 'Meta: Invalid parameter'],
    );
    // 408, 429 and 5xx are tried again whatever the body says; a body without an error is quoted.
    for (const status of [408, 429, 500]) {
      const h = harness(META, () => ({ kind: 'response', status, body: 'busy', headers: {} }));
      await assert.rejects(h.job.chunk(h.ctx(cursor, 1)), new RegExp(`HTTP ${status} busy`));
    }
    const lost = harness(META, () => ({ kind: 'network_error', message: 'timeout' }) as InboundResponse);
    await assert.rejects(lost.job.chunk(lost.ctx(cursor, 1)), /audience 42: timeout/);
  });

  it('a run given up is a failed sync_runs row with the error', async () => {
    const h = harness(WEBHOOK, () => json(200, {}));
    await h.job.gaveUp?.(h.ctx(cursor, 4), 'boom');
    assert.deepEqual(
      h.runs.map((r) => [r['status'], r['error'], r['chunks']]),
      [['failed', 'boom', 5]],
    );
  });
});
