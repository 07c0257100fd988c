/**
 * The packed package runs without TypeScript: the `prepack` script's esbuild command, into a
 * temporary directory, gives a `main.js` that Node runs with type stripping off, and Google's
 * client creates and reads a dataset through it.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BigQuery } from '@google-cloud/bigquery';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const localRequire = createRequire(import.meta.url);

/** The `prepack` script's arguments to esbuild, writing to `outfile` instead of dist/. */
function prepackArgs(outfile: string): string[] {
  const pkg = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
    scripts: { prepack: string };
  };
  const [command, ...args] = pkg.scripts.prepack.split(/\s+/);
  assert.equal(command, 'esbuild');
  assert.ok(args.includes('--outfile=dist/main.js'));
  return args.map((a) => (a.startsWith('--outfile=') ? `--outfile=${outfile}` : a));
}

/** Waits for the emulator's ready line; resolves with its URL. */
function readyUrl(child: ChildProcess): Promise<string> {
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bundle did not start: ${stderr}`)), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the bundle exited with ${code}: ${stderr}`));
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) => {
      clearTimeout(timer);
      const m = /listening on (http:\/\/\S+)$/.exec(line);
      if (m) resolve(m[1] as string);
      else reject(new Error(`unexpected first line: ${line}`));
    });
  });
}

describe('BigQuery emulator: the packed bundle', () => {
  let dir: string;
  let child: ChildProcess | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'bq-bundle-'));
  });

  after(() => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds with the prepack command, runs with no type stripping, and serves the client', async () => {
    const esbuild = join(dirname(localRequire.resolve('esbuild/package.json')), 'bin', 'esbuild');
    execFileSync(esbuild, prepackArgs(join(dir, 'main.js')), { cwd: PACKAGE, stdio: 'pipe' });
    // The third-party dependencies stay external: the bundle finds them as an installed copy would.
    const commander = localRequire.resolve('commander');
    const modules = commander.slice(
      0,
      commander.lastIndexOf(`${sep}node_modules${sep}`) + '/node_modules'.length,
    );
    symlinkSync(modules, join(dir, 'node_modules'), 'dir');
    child = spawn(
      process.execPath,
      ['--no-experimental-strip-types', join(dir, 'main.js'), '--port', '0', '--data-dir', join(dir, 'data')],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const url = await readyUrl(child);
    const bq = new BigQuery({ projectId: 'bundle-project', apiEndpoint: url });
    await bq.createDataset('bundled', { location: 'US' });
    const [dataset] = await bq.dataset('bundled').get();
    assert.equal(dataset.id, 'bundled');
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    child = undefined;
  });
});
