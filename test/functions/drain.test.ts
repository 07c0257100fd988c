/**
 * A function told to stop (SIGTERM) finishes its pushes in flight before it exits, and answers a
 * new one 503 at once (adapters/drain.ts), under the real functions framework CLI, which on its own
 * exits at once and drops the push in flight.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FRAMEWORK_CLI, freePort, type Running, startAndProbe } from '../infra/support-bundles.ts';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'slow-function.ts');

describe('functions: a SIGTERM drains the pushes in flight', function () {
  this.timeout(30_000);
  let running: Running | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  const start = async (): Promise<Running> => {
    const port = await freePort();
    running = await startAndProbe(
      [FRAMEWORK_CLI, '--target=slow', `--source=${FIXTURE}`, '--signature-type=http', `--port=${port}`],
      { cwd: join(import.meta.dirname, '..', '..'), env: { NODE_ENV: 'production' }, port, tcp: true },
    );
    return running;
  };
  const exited = (r: Running) =>
    new Promise<number | null>((resolve) =>
      r.child.exitCode !== null ? resolve(r.child.exitCode) : r.child.once('exit', (code) => resolve(code)),
    );

  it('answers the push in flight, refuses a new one with 503, then exits 0', async () => {
    const r = await start();
    // A first request hands the SIGTERM over from the framework to the drain.
    assert.equal(await (await fetch(`${r.url}/?ms=0`)).text(), 'done');
    const slow = fetch(`${r.url}/?ms=1500`).then(async (res) => [res.status, await res.text()] as const);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exit = exited(r);
    r.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const late = await fetch(`${r.url}/?ms=0`);
    assert.equal(late.status, 503);
    assert.equal(((await late.json()) as { error: { status: string } }).error.status, 'UNAVAILABLE');
    assert.deepEqual(await slow, [200, 'done']);
    assert.equal(await exit, 0);
    assert.match(r.output(), /stopping: 1 push\(es\) in flight/);
  });

  it('waits for a push whose sender hung up: its work (the ledger row) is done before the exit', async () => {
    const r = await start();
    assert.equal(await (await fetch(`${r.url}/?ms=0`)).text(), 'done');
    const mark = join(mkdtempSync(join(tmpdir(), 'drain-')), 'row');
    // The sender (Pub/Sub, stopped or timed out) closes the connection while the push is worked on.
    const sender = new AbortController();
    const slow = fetch(`${r.url}/?ms=1500&mark=${encodeURIComponent(mark)}`, { signal: sender.signal }).catch(
      () => 'hung up',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    sender.abort();
    assert.equal(await slow, 'hung up');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const exit = exited(r);
    r.child.kill('SIGTERM');
    assert.equal(await exit, 0);
    assert.match(r.output(), /stopping: 1 push\(es\) in flight/);
    assert.equal(existsSync(mark), true, 'the work after the hang-up was done before the exit');
  });

  it('exits 0 on a SIGTERM with nothing in flight', async () => {
    const r = await start();
    assert.equal(await (await fetch(`${r.url}/?ms=0`)).text(), 'done');
    const exit = exited(r);
    r.child.kill('SIGTERM');
    assert.equal(await exit, 0);
    assert.match(r.output(), /stopping: 0 push\(es\) in flight/);
  });
});
