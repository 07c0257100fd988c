/** The CLI as a child process: its ready line, clean SIGTERM, and data surviving kill -9. */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BigQuery } from '@google-cloud/bigquery';

const MAIN = new URL('../main.ts', import.meta.url).pathname;

interface Child {
  proc: ChildProcess;
  url: string;
}

function startChild(dataDir: string): Promise<Child> {
  // No streaming buffer: the test deletes a row it has just streamed.
  const proc = spawn(
    process.execPath,
    [MAIN, '--port', '0', '--data-dir', dataDir, '--streaming-buffer-ms', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`emulator did not start: ${stderr}`)), 10_000);
    const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
    lines.once('line', (line) => {
      clearTimeout(timer);
      const m = /^bigquery emulator listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(line);
      if (!m || m[2] === '0') reject(new Error(`unexpected ready line: ${line}`));
      else resolve({ proc, url: m[1] as string });
    });
    proc.once('exit', (code) => reject(new Error(`emulator exited with ${code}: ${stderr}`)));
  });
}

function exited(proc: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (proc.exitCode !== null || proc.signalCode !== null)
    return Promise.resolve({ code: proc.exitCode, signal: proc.signalCode });
  return new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('BigQuery emulator: CLI and durability', () => {
  let dataDir: string;
  const children: ChildProcess[] = [];
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'bq-durable-'));
  });
  after(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps datasets, tables, views and committed rows across kill -9, and exits 0 on SIGTERM', async () => {
    const first = await startChild(dataDir);
    children.push(first.proc);
    const bq = new BigQuery({ projectId: 'durable', apiEndpoint: first.url });
    const [ds] = await bq.createDataset('d');
    const [table] = await ds.createTable('events', {
      schema: {
        fields: [
          { name: 'event_id', type: 'STRING' },
          { name: 'user', type: 'RECORD', fields: [{ name: 'email', type: 'STRING' }] },
        ],
      },
      timePartitioning: { type: 'DAY' },
      description: 'kept',
    });
    await ds.createTable('emails', { view: { query: 'SELECT user.email FROM d.events' } });
    await table.insert(
      Array.from({ length: 300 }, (_, i) => ({ event_id: `e${i}`, user: { email: `u${i}@x` } })),
    );
    await bq.query("DELETE FROM d.events WHERE event_id = 'e0'");

    // DuckDB allows one process per file: a second emulator on the same directory refuses to start.
    const rival = spawn(process.execPath, [MAIN, '--port', '0', '--data-dir', dataDir], { stdio: 'ignore' });
    children.push(rival);
    assert.equal((await exited(rival)).code, 1);

    first.proc.kill('SIGKILL');
    assert.equal((await exited(first.proc)).signal, 'SIGKILL');

    const second = await startChild(dataDir);
    children.push(second.proc);
    const bq2 = new BigQuery({ projectId: 'durable', apiEndpoint: second.url });
    const [md] = await bq2.dataset('d').table('events').getMetadata();
    assert.equal(md.description, 'kept');
    assert.deepStrictEqual(md.timePartitioning, { type: 'DAY' });
    const [rows] = await bq2.query('SELECT COUNT(*) AS n, COUNTIF(event_id = "e0") AS deleted FROM d.events');
    assert.deepStrictEqual(rows, [{ n: 299, deleted: 0 }]);
    const [viaView] = await bq2.query("SELECT email FROM d.emails WHERE email = 'u7@x'");
    assert.deepStrictEqual(viaView, [{ email: 'u7@x' }]);

    second.proc.kill('SIGTERM');
    assert.deepStrictEqual(await exited(second.proc), { code: 0, signal: null });

    // After a clean shutdown the file opens again (nobody else holds it).
    const third = await startChild(dataDir);
    children.push(third.proc);
    const [again] = await new BigQuery({ projectId: 'durable', apiEndpoint: third.url }).query(
      'SELECT COUNT(*) AS n FROM d.events',
    );
    assert.deepStrictEqual(again, [{ n: 299 }]);
    third.proc.kill('SIGINT');
    assert.equal((await exited(third.proc)).code, 0);
  });
});
