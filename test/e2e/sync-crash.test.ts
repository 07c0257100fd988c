/**
 * A sync run interrupted by `kill -9` on the local environment: a files sync of 40 rows, one row
 * per part, is under way when the schedule function is killed; the supervisor starts a new
 * instance in its place, as Cloud Functions does, and the scheduler's tick takes the run back
 * once its lease runs out. It
 * finishes from the last committed page: every row is in exactly one part, none is missing, the
 * manifest is written last, and sync_runs has one row for the run.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Storage } from '@google-cloud/storage';
import { eventbusIn, localBigQuery, REPO, type StartedLocal, startLocalCli } from '../support/local-start.ts';
import { until } from '../support/until.ts';

const ROWS = 40;
// A short function timeout makes a short lease (timeout + 60 s): the test waits for it once.
const EXTRA = `
connections:
  - id: exports
    type: storage
    bucket: local-project-crash-exports
functions:
  schedule: { timeout_seconds: 5 }
`;

describe('end to end: a sync run killed with SIGKILL resumes without a row twice or a row lost', function () {
  this.timeout(360_000);
  let local: StartedLocal;
  let settingsFile = '';
  const start = () =>
    startLocalCli({
      prefix: 'eventbus-sync-crash-',
      settings: (dir) => {
        settingsFile = join(dir, 'crash.yaml');
        writeFileSync(
          settingsFile,
          `${readFileSync(join(REPO, 'environments', 'local.yaml'), 'utf8')}${EXTRA}`,
        );
        return settingsFile;
      },
      env: { EVENTBUS_TICK_SECONDS: '2' },
    });
  const exited = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((r) => child.once('exit', () => r()));

  after(async () => {
    if (local && local.child.exitCode === null) {
      local.child.kill('SIGINT');
      await exited(local.child);
    }
    if (local) rmSync(local.dataDir, { recursive: true, force: true });
  });

  it('finishes from the last committed page after the schedule function is killed mid-run', async () => {
    local = await start();
    const storage = new Storage({
      projectId: 'local-project',
      apiEndpoint: `http://127.0.0.1:${local.ports['storage']}`,
    });
    const bucket = storage.bucket('local-project-crash-exports');
    await bucket.create();
    const eventbus = eventbusIn(local.dataDir);
    const file = join(local.dataDir, 'sync.yaml');
    writeFileSync(
      file,
      JSON.stringify({
        kind: 'Sync',
        name: 'numbers',
        spec: {
          model: `SELECT n AS id, CONCAT('customer-', CAST(n AS STRING)) AS name FROM UNNEST(GENERATE_ARRAY(1, ${ROWS})) AS n`,
          primary_key: ['id'],
          mode: 'upsert',
          schedule: { manual: true },
          destination: { files: { connection: 'exports', format: 'jsonl' } },
          batch_size: 1,
        },
      }),
    );
    await eventbus('apply', '-f', file);
    const started = await eventbus('sync', 'run', 'numbers', '--env', settingsFile);
    const runId = /started (Sync\/numbers@\S+?);/.exec(started)?.[1] as string;
    assert.ok(runId, started);
    const parts = async () =>
      (await bucket.getFiles({ prefix: 'syncs/numbers/' }))[0].filter((f) => f.name.endsWith('.jsonl'));

    // Some parts written, the run not finished: kill the function where it stands.
    await until('a few parts', async () => ((await parts()).length >= 5 ? true : undefined), 60_000, 50);
    const pid = Number(/^schedule ready on \S+ \(pid (\d+)\)/m.exec(local.output())?.[1]);
    assert.ok(pid > 0, 'the schedule function’s pid is printed');
    process.kill(pid, 'SIGKILL');
    const before = (await parts()).length;
    assert.ok(before < ROWS, `killed mid-run (${before} parts)`);
    // A new instance in its place (the rest running on); the tick takes the run back after its lease.
    const seen = local.output().length;
    await until(
      'a new schedule instance',
      async () => /^schedule ready on \S+ \(pid \d+\)/m.test(local?.output().slice(seen) ?? '') || undefined,
      60_000,
      100,
    );
    assert.equal(local.child.exitCode, null, 'the environment runs on');
    const bigquery = await localBigQuery(local.ports);
    const [row] = await until(
      `${runId} finished`,
      async () => {
        const [rows] = await bigquery.query({
          query:
            'SELECT status, rows_planned, rows_sent, chunks FROM eventbus_ops.sync_runs WHERE run_id = @id',
          params: { id: runId },
        });
        return rows.length > 0
          ? (rows as { status: string; rows_planned: number; rows_sent: number }[])
          : undefined;
      },
      200_000,
      1000,
    );
    assert.deepEqual(
      [row?.status, Number(row?.rows_planned), Number(row?.rows_sent)],
      ['succeeded', ROWS, ROWS],
    );

    const all = await parts();
    const lines = (await Promise.all(all.map(async (f) => (await f.download())[0].toString())))
      .join('')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: number }).id);
    assert.equal(all.length, ROWS, 'one part per page, none written twice');
    assert.equal(lines.length, ROWS, 'no row twice');
    assert.deepEqual(
      [...new Set(lines)].sort((a, b) => a - b),
      Array.from({ length: ROWS }, (_, i) => i + 1),
      'no row lost',
    );
    const [manifest] = await bucket.getFiles({ prefix: 'syncs/numbers/', matchGlob: '**/_SUCCESS' });
    assert.equal(manifest.length, 1);
    assert.deepEqual(JSON.parse((await manifest[0]?.download())?.[0].toString() ?? '{}').rows, ROWS);
  });
});
