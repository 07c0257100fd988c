/**
 * The owner lock against real processes: a live owner is named, and a dead one — killed and
 * reaped, killed but not reaped (a zombie), replaced by another process with the same pid, or
 * leaving a garbled file — never holds the lock. Racing takers of a stale lock: one wins.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireOwnerLock, LockHeldError, procStat } from '../owner-lock.ts';

const MODULE = fileURLToPath(new URL('../owner-lock.ts', import.meta.url));

/** Node code that takes the lock, says so, and holds it (or reports that it lost). */
const holder = (lock: string, holdMs: number) =>
  `import(${JSON.stringify(MODULE)}).then((m) => {
     try { m.acquireOwnerLock(${JSON.stringify(lock)}, 'test lock', 'holder'); console.log('won'); }
     catch (e) { console.log(e instanceof m.LockHeldError ? 'lost' : 'error ' + e.message); process.exit(0); }
     setTimeout(() => process.exit(0), ${holdMs});
   })`;

function waitForLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once('exit', () => (out.includes('\n') ? undefined : reject(new Error(`exited: ${out}`))));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

describe('owner lock', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'owner-lock-'));
  });
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second taker while the owner lives, naming its pid and command, and releases', async () => {
    const lock = join(dir, 'LOCK');
    const child = spawn(process.execPath, ['--input-type=module', '-e', holder(lock, 30_000)]);
    children.push(child);
    assert.equal(await waitForLine(child), 'won');
    assert.throws(
      () => acquireOwnerLock(lock, 'data directory x', 'emulator'),
      (e: unknown) =>
        e instanceof LockHeldError &&
        e.message.startsWith(`data directory x is in use by another emulator (pid ${child.pid}: `) &&
        e.message.includes('--input-type=module'),
    );
    child.kill('SIGKILL');
    await exited(child);
    const release = acquireOwnerLock(lock, 'data directory x', 'emulator');
    assert.equal(JSON.parse(readFileSync(lock, 'utf8')).pid, process.pid);
    release();
    assert.throws(() => readFileSync(lock), /ENOENT/);
  });

  it('takes over from an owner killed but not yet reaped (a zombie)', async () => {
    const lock = join(dir, 'LOCK');
    // sh starts the holder in the background and becomes `sleep`, which never reaps it.
    const script = `${JSON.stringify(process.execPath)} --input-type=module -e ${shellQuote(holder(lock, 30_000))} & exec sleep 20`;
    const parent = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(parent);
    assert.equal(await waitForLine(parent), 'won');
    const owner = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number };
    process.kill(owner.pid, 'SIGKILL');
    for (let i = 0; i < 100 && procStat(owner.pid)?.state !== 'Z'; i++)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(procStat(owner.pid)?.state, 'Z', 'the killed holder is a zombie');
    const release = acquireOwnerLock(lock, 'data directory x', 'emulator');
    release();
  });

  it('takes over from a live process that reused the pid (another start time) and from a garbled file', () => {
    const lock = join(dir, 'LOCK');
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, start: '1', command: 'long gone' }));
    acquireOwnerLock(lock, 'x', 'y')();
    writeFileSync(lock, '{"pid": ');
    acquireOwnerLock(lock, 'x', 'y')();
    writeFileSync(lock, 'not a lock at all');
    acquireOwnerLock(lock, 'x', 'y')();
  });

  it('lets exactly one of several racing takers have a stale lock', async () => {
    const lock = join(dir, 'LOCK');
    writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 7, start: '5', command: 'dead' }));
    const racers = Array.from({ length: 4 }, () => {
      const c = spawn(process.execPath, ['--input-type=module', '-e', holder(lock, 3_000)]);
      children.push(c);
      return waitForLine(c);
    });
    const results = (await Promise.all(racers)).sort();
    assert.deepEqual(results, ['lost', 'lost', 'lost', 'won']);
  });
});

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
