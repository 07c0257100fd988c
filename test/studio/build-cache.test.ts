import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuildCache, readBuild, writeBuild } from '../../adapters/build-cache.ts';
import { buildWebFiles } from '../../studio/assets.ts';

describe('studio build cache: outputs reused while their inputs keep their bytes', () => {
  let root = '';
  let cache: BuildCache;
  const outputs = new Map([['page.js', Buffer.from('console.log(1)')]]);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'eventbus-build-cache-'));
    writeFileSync(join(root, 'a.ts'), 'export const a = 1;');
    writeFileSync(join(root, 'b.ts'), 'export const b = 2;');
    cache = { root, dir: join(root, 'cache'), salt: 'esbuild 1' };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('gives back what was kept while nothing changed', () => {
    assert.equal(readBuild(cache, ['page.js']), undefined, 'nothing kept yet');
    writeBuild(cache, outputs, ['a.ts', 'b.ts']);
    assert.deepEqual(readBuild(cache, ['page.js']), outputs);
  });

  it('builds again when an input is edited, gone, or the builder changed', () => {
    writeBuild(cache, outputs, ['a.ts', 'b.ts']);
    writeFileSync(join(root, 'b.ts'), 'export const b = 3;');
    assert.equal(readBuild(cache, ['page.js']), undefined, 'an edited input');
    writeBuild(cache, outputs, ['a.ts', 'b.ts']);
    rmSync(join(root, 'a.ts'));
    assert.equal(readBuild(cache, ['page.js']), undefined, 'an input gone');
    writeFileSync(join(root, 'a.ts'), 'export const a = 1;');
    assert.deepEqual(readBuild(cache, ['page.js']), outputs, 'the same bytes again');
    assert.equal(readBuild({ ...cache, salt: 'esbuild 2' }, ['page.js']), undefined, 'another builder');
    assert.equal(readBuild(cache, ['other.js']), undefined, 'an output it never kept');
  });

  it('keeps the newest build only', () => {
    writeBuild(cache, outputs, ['a.ts']);
    writeBuild(cache, outputs, ['a.ts', 'b.ts']);
    assert.equal(readdirSync(cache.dir, { withFileTypes: true }).filter((e) => e.isDirectory()).length, 1);
    assert.deepEqual(readBuild(cache, ['page.js']), outputs);
  });

  it('skips a cache it cannot write, without failing the build', () => {
    writeFileSync(join(root, 'cache'), 'a file where the directory should be');
    writeBuild(cache, outputs, ['a.ts']);
    assert.equal(readBuild(cache, ['page.js']), undefined);
  });

  it('serves the studio the bytes a build makes', async function () {
    this.timeout(60_000);
    const cached = await buildWebFiles();
    const again = await buildWebFiles();
    const built = await buildWebFiles({ cache: false });
    assert.deepEqual([...cached.keys()].sort(), [...built.keys()].sort());
    for (const [name, body] of built) {
      assert.ok(cached.get(name)?.equals(body), `${name}: cached as built`);
      assert.ok(again.get(name)?.equals(body), `${name}: cached as built`);
    }
  });
});
