/**
 * The entry Pulumi runs (Pulumi.yaml `main`): on a Node older than 24 one clear line naming the
 * Node it needs, instead of ERR_UNKNOWN_FILE_EXTENSION from deep inside; on Node 24 it goes on
 * to infra/index.ts. The old Node is simulated by a preload that reports another version.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

function runEntry(preload?: string): Promise<{ code: number; stderr: string }> {
  const args = [...(preload ? ['--import', `data:text/javascript,${encodeURIComponent(preload)}`] : [])];
  return new Promise((done) => {
    execFile(process.execPath, [...args, join(root, 'infra/main.mjs')], { cwd: root }, (err, _out, stderr) =>
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe('infra: the Pulumi entry', () => {
  it('is what Pulumi.yaml runs', () => {
    assert.match(readFileSync(join(root, 'Pulumi.yaml'), 'utf8'), /^main: infra\/main\.mjs$/m);
  });

  it('on Node 20 stops with one line naming Node 24', async () => {
    const r = await runEntry(
      "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.19.5' } });",
    );
    assert.equal(r.code, 1);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0] as string, /needs Node 24 \(this is Node 20\.19\.5\)/);
  });

  it('on Node 24 runs infra/index.ts (which, outside pulumi, asks for the stack config)', async () => {
    const r = await runEntry();
    assert.notEqual(r.code, 0);
    assert.doesNotMatch(r.stderr, /needs Node|ERR_UNKNOWN_FILE_EXTENSION/);
    assert.match(r.stderr, /missing stack config|Pulumi/);
  });
});
