/** The CLI as a user runs it: a child process, exit codes, stdout for data, stderr for errors. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../../..');

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [join(root, 'cli/main.ts'), ...args], { cwd: root }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? 1) : 0;
      done({ code: typeof code === 'number' ? code : 1, stdout, stderr });
    });
  });
}

describe('cli: eventbus', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints help listing the commands', async () => {
    const r = await cli(['--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /settings/);
    assert.match(r.stdout, /start/);
  });

  it('settings check prints the plan of the local environment as tables', async () => {
    const r = await cli(['settings', 'check']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /environments\/local\.yaml: valid/);
    assert.match(r.stdout, /^Subscriptions$/m);
    assert.match(r.stdout, /deliveries-webhook .*→ forward .*attributes\.destination = "webhook"/);
  });

  it('settings check --format json prints the plan as data', async () => {
    const r = await cli(['settings', 'check', 'environments/example.yaml', '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const p = JSON.parse(r.stdout) as { environment: string; destinations: { id: string }[] };
    assert.equal(p.environment, 'acme-prod');
    assert.deepEqual(
      p.destinations.map((d) => d.id),
      ['meta', 'ga4', 'tiktok', 'crm'],
    );
  });

  it('settings check names the bad key on stderr and exits 1', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'name: x\nproject: some-project\nregion: europe-west1\ndestinations:\n  - { id: a, type: fax }\n',
    );
    const r = await cli(['settings', 'check', file]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /destinations\[0\]\.type: expected one of/);
  });

  it('an unknown command is an error', async () => {
    const r = await cli(['bogus']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /unknown command 'bogus'/);
  });
});
