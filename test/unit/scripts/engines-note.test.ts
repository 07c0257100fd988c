/**
 * The note printed after `npm install` on a machine whose own Node is older than 24, right
 * under npm's EBADENGINE warnings: it says why they are harmless. Silent on Node 24.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../../..');

function note(agent: string): Promise<string> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [join(root, 'scripts/engines-note.mjs')],
      { env: { ...process.env, npm_config_user_agent: agent } },
      (err, stdout) => (err ? fail(err) : done(stdout)),
    );
  });
}

describe('npm install: the engines note', () => {
  it('runs after every install (the root postinstall)', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.equal(pkg.scripts['postinstall'], 'node scripts/engines-note.mjs');
  });

  it('explains the EBADENGINE warnings when npm runs on Node 20, naming that Node', async () => {
    const out = await note('npm/11.19.1 node/v20.20.2 linux x64 workspaces/false');
    assert.match(out, /EBADENGINE warnings above are expected/);
    assert.match(out, /node is v20\.20\.2/);
  });

  it('says nothing when npm runs on Node 24', async () => {
    assert.equal(await note('npm/11.19.1 node/v24.21.0 linux x64 workspaces/false'), '');
  });
});
