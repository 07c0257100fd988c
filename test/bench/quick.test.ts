/**
 * `npm run bench -- --quick` (bench/run.ts): every suite runs in a few seconds and must work —
 * complete, throw nothing, measure something (no zero or NaN figure) — or the run fails. This
 * checks that the benches work, never how fast anything is; the figures themselves come from the
 * full `npm run bench`. A second test shows the harness failing deliberately broken suites: one
 * that throws, one that measures zero, one that hangs past its bound (killed, with what it
 * started).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SUITES } from '../../bench/run.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** Runs bench/run.ts with `args`; its exit code and everything it printed. */
function bench(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench', 'run.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.once('close', (code) => done({ code, out }));
  });
}

/** Whether a process still runs: a zombie (dead, not yet reaped by this machine's init) does not. */
function running(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== undefined && state !== 'Z';
  } catch {
    return false;
  }
}

describe('npm run bench -- --quick', () => {
  it('runs every suite to completion, each measuring something', async function () {
    // A bound for a loaded machine; each suite has its own (45 s) inside the harness.
    this.timeout(600_000);
    const { code, out } = await bench(['--quick']);
    assert.equal(code, 0, out);
    // Every suite bench/run.ts lists ran and worked.
    const ran =
      /(\d+) suite\(s\) in [\d.]+ s \(quick: checks that each works, not its speed\); all worked/.exec(out);
    assert.ok(ran, out);
    assert.equal(Number(ran[1]), Object.keys(SUITES).length, out);
    assert.doesNotMatch(out, /failed:/);
    // What the figures were measured on, and how much of the machine other tenants took meanwhile.
    assert.match(out, /^machine: \d+ cores \(nproc\), .+, Node v\d+/m);
    assert.match(out, /^CPU steal over the run: \d+\.\d % of the machine's CPU time/m);
    for (const title of ['# gateway:', '# store:', '# delivery:', '# pubsub emulator', '# studio', '# syncs'])
      assert.ok(out.includes(title), `${title} ran:\n${out}`);
  });

  it('compares a gateway started with BENCH_GATEWAY_VARIANT in the same turns, and refuses a malformed one', async function () {
    this.timeout(120_000);
    const { code, out } = await bench(['gateway', '--quick'], {
      BENCH_GATEWAY_VARIANT: 'EVENTBUS_PUBLISH_HOLD_MS=0',
    });
    assert.equal(code, 0, out);
    const line =
      /single-event POST, the gateway with EVENTBUS_PUBLISH_HOLD_MS=0: ([\d,]+) req\/s {2}\| baseline the gateway as configured, in the same turns: ([\d,]+) req\/s/.exec(
        out,
      );
    assert.ok(line, out);
    assert.ok(Number(line[1]?.replaceAll(',', '')) > 0 && Number(line[2]?.replaceAll(',', '')) > 0, out);
    const batches =
      /1000-event batches, the gateway with EVENTBUS_PUBLISH_HOLD_MS=0: ([\d,]+) events\/s {2}\| baseline the gateway as configured, in the same turns: ([\d,]+) events\/s/.exec(
        out,
      );
    assert.ok(batches, out);
    assert.ok(
      Number(batches[1]?.replaceAll(',', '')) > 0 && Number(batches[2]?.replaceAll(',', '')) > 0,
      out,
    );
    assert.match(out, /CPU µs\/request: gateway \d+/);
    const bad = await bench(['gateway', '--quick'], { BENCH_GATEWAY_VARIANT: 'HOLD' });
    assert.equal(bad.code, 1, bad.out);
    assert.match(bad.out, /BENCH_GATEWAY_VARIANT: "HOLD" is not NAME=value/);
  });

  it('fails a suite that throws, one that measures zero and one that hangs past its bound', async function () {
    this.timeout(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'bench-quick-'));
    const pidFile = join(dir, 'pid');
    try {
      const fixture = (name: string) => join('test', 'fixtures', 'bench', `${name}.ts`);
      const { code, out } = await bench(
        [
          '--quick',
          '--bound',
          '5',
          ...['works', 'throws', 'zero', 'hangs'].flatMap((n) => ['--module', fixture(n)]),
        ],
        { BENCH_FIXTURE_PID_FILE: pidFile },
      );
      assert.equal(code, 1, out);
      assert.match(
        out,
        /# fixture: works\n {2}a figure: 2\.00 ops\/s {2}\| baseline a baseline: 1\.00 ops\/s {2}\| ratio 2\.00x\n/,
      );
      assert.match(out, /# fixture: throws\n {2}failed: threw: Error: deliberately broken suite/);
      assert.match(out, /failed: single-event POST: measured 0 req\/s/);
      assert.match(out, /failed: a latency: measured NaN ms/);
      assert.match(out, /# fixture: hangs\n {2}failed: did not finish within 5 s \(killed\)/);
      assert.match(
        out,
        new RegExp(
          `4 suite\\(s\\) in [\\d.]+ s .*; failed: ${['throws', 'zero', 'hangs'].map((n) => fixture(n).replaceAll('/', '\\/').replace('.ts', '\\.ts')).join(', ')}\\n`,
        ),
      );
      const pid = Number(readFileSync(pidFile, 'utf8'));
      assert.equal(running(pid), false, 'what the hung suite started was killed with it');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
