/**
 * The scratch folder a child process runs from at a stable path (test/support/scratch-tree.ts,
 * `claimStableDir`): the same path run after run, never one that another run holds, and one left
 * by a run that died taken back after ten minutes.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claimStableDir } from '../support/scratch-tree.ts';

describe('test support: a scratch folder at a stable path', () => {
  const name = `eventbus-claim-test-${process.pid}`;
  const claimed: string[] = [];
  const claim = (now?: number) => {
    const dir = claimStableDir(name, now);
    claimed.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of claimed.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('is the same path once the last run removed it, and empty', () => {
    const first = claim();
    writeFileSync(join(first, 'left.txt'), 'x');
    rmSync(first, { recursive: true });
    assert.equal(claim(), first);
    assert.deepEqual(readdirSync(first), []);
  });

  it('is another path while a run holds the first, and takes back one held for ten minutes', () => {
    const first = claim();
    const second = claim();
    assert.notEqual(second, first);
    assert.ok(existsSync(first) && existsSync(second));
    writeFileSync(join(first, 'left.txt'), 'x');
    assert.equal(claim(Date.now() + 11 * 60_000), first, 'a dead run’s folder');
    assert.deepEqual(readdirSync(first), [], 'emptied');
  });
});
