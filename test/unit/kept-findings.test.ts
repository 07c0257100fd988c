/**
 * The architecture guards' kept findings (test/support/kept-findings.ts): a file's findings are
 * reused only while its path and text, the guard's source and the guard's inputs are the same;
 * anything else analyses again, and a broken kept file is passed by.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KeptFindings } from '../support/kept-findings.ts';

describe('test support: findings kept by content', () => {
  // A scratch folder per case: the guard's source file (its name names the kept folder) and the cache.
  let dir = '';
  const guardFile = () => join(dir, 'a-guard.test.ts');
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kept-findings-'));
    writeFileSync(guardFile(), '// version 1');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** One run of the guard: the files it analysed (not found kept), and what it found in `text`. */
  const run = (text: string, inputs: readonly unknown[] = [new Set(['b', 'a'])], where = 'core/x.ts') => {
    const findings = new KeptFindings(pathToFileURL(guardFile()).href, inputs, join(dir, 'kept'));
    const found = findings.of(where, text, () => [`${where}: ${text.length}`]);
    findings.save();
    return { analysed: findings.analysedCount, found };
  };

  it('reuses a file’s findings while nothing it depends on changed', () => {
    assert.deepEqual(run('const a = 1;'), { analysed: 1, found: ['core/x.ts: 12'] });
    assert.deepEqual(run('const a = 1;'), { analysed: 0, found: ['core/x.ts: 12'] });
    assert.deepEqual(run('const a = 1;', [new Set(['a', 'b'])]).analysed, 0, 'a set is its members');
  });

  it('analyses again for another text, path, guard source or input', () => {
    run('const a = 1;');
    assert.equal(run('const a = 2;').analysed, 1, 'the text');
    assert.equal(run('const a = 1;', undefined, 'core/y.ts').analysed, 1, 'the path');
    assert.equal(run('const a = 1;', [new Set(['a', 'c'])]).analysed, 1, 'an input');
    writeFileSync(guardFile(), '// version 2');
    assert.equal(run('const a = 1;').analysed, 1, 'the guard');
  });

  it('passes a broken kept file by, and keeps a few versions per guard', () => {
    run('const a = 1;');
    const [kept] = readdirSync(join(dir, 'kept', 'a-guard'));
    writeFileSync(join(dir, 'kept', 'a-guard', kept as string), '{"half');
    assert.deepEqual(run('const a = 1;'), { analysed: 1, found: ['core/x.ts: 12'] });
    for (let i = 0; i < 20; i++) run('x', [i]);
    assert.equal(readdirSync(join(dir, 'kept', 'a-guard')).length, 16);
  });
});
