/** The CLI as a user runs it: a child process, exit codes, stdout for data, stderr for errors. */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

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

  it('enrich refuses a window it cannot read before touching the warehouse', async () => {
    const bad = await cli(['enrich', '--from', 'yesterday', '--to', '2026-11-01']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--from must be a time such as 2026-01-01/);
    const backwards = await cli(['enrich', '--from', '2026-11-02', '--to', '2026-11-01']);
    assert.match(backwards.stderr, /--to must be after --from/);
  });

  it('erase refuses what is not an identifier before touching the warehouse', async () => {
    const r = await cli(['erase', 'ann@example.com']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /ann@example.com: an identifier is kind:value/);
  });

  it('geo update refuses a file that is not a country database before looking for the environment', async () => {
    const file = join(dir, 'corrupt.mmdb');
    writeFileSync(file, 'not a database at all');
    const r = await cli(['geo', 'update', file, '--data-dir', join(dir, 'no-environment')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /refused, nothing uploaded: not an MMDB database/);
  });

  it('settings check prints the plan of the local environment as tables', async () => {
    const r = await cli(['settings', 'check']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /environments\/local\.yaml: valid/);
    assert.match(r.stdout, /^Subscriptions$/m);
    assert.match(r.stdout, /deliveries-webhook-push .*deliveries-webhook .*→ forward/);
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

  it('settings check warns about a region Cloud Build is not known to build in for new projects', async () => {
    const file = join(dir, 'frankfurt.yaml');
    writeFileSync(file, 'name: fra\nproject: some-project\nregion: europe-west3\n');
    const r = await cli(['settings', 'check', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^warning: region europe-west3: the functions are built there by Cloud Build/m);
    const known = await cli(['settings', 'check', 'environments/example.yaml']);
    assert.doesNotMatch(known.stderr, /Cloud Build/);
    // The example states 1,000 events/s sustained: the cheaper billing is said first, with the
    // monthly difference and the one line that switches (core/deploy/billing-advice.ts).
    assert.match(
      known.stderr.split('\n')[0] ?? '',
      /^warning: RECOMMENDED BILLING: .* \$[\d,]+ a month less\. Switch with one line under cost: in the settings: billing: \{ gateway: instance, store: instance, forward: instance \}/,
    );
    // And the claim store (core/deploy/claims-advice.ts): Bigtable at that rate, the line that switches.
    assert.match(
      known.stderr,
      /^warning: RECOMMENDED CLAIM STORE: at the stated 1,000 events\/s sustained, .* Bigtable costs less from about [\d,]+ events\/s.* claims: \{ store: bigtable \}/m,
    );
  });

  it('an unknown command is an error', async () => {
    const r = await cli(['bogus']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /unknown command 'bogus'/);
  });
});

/** Runs the CLI with a resolve hook that reports, on exit, which packages it loaded. */
function cliLoads(args: string[]): Promise<{ code: number; packages: string[]; stderr: string }> {
  const hook = `import { registerHooks } from 'node:module';
const seen = new Set();
registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(r.url); if (m) seen.add(m[1]); return r; } });
process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify([...seen]) + '\\n'));`;
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, join(root, 'cli/main.ts'), ...args],
      { cwd: root },
      (err, _stdout, stderr) => {
        const line = /^LOADED (.*)$/m.exec(stderr);
        done({
          code: err ? Number((err as { code?: number }).code ?? 1) : 0,
          packages: line ? (JSON.parse(line[1] as string) as string[]) : [],
          stderr,
        });
      },
    );
  });
}

describe('cli: start-up and shutdown', () => {
  it('the bin is committed executable with a Node shebang, so npm linking it changes no tracked file', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    const bin = (pkg.bin['eventbus'] as string).replace(/^\.\//, '');
    // npm (bin-links) makes a bin target executable in place: a target committed 644 showed as
    // modified in git after the first `npx eventbus`. Under npm the PATH starts with
    // node_modules/.bin, where the pinned Node 24 is, so `env node` finds it.
    const staged = await new Promise<string>((done, fail) =>
      execFile('git', ['ls-files', '-s', bin], { cwd: root }, (err, out) => (err ? fail(err) : done(out))),
    );
    if (staged === '') return; // not a git checkout (a packed copy): nothing to compare with
    assert.match(staged, /^100755 /, `${bin} is committed executable`);
    assert.ok((statSync(join(root, bin)).mode & 0o111) !== 0);
    assert.equal(readFileSync(join(root, bin), 'utf8').split('\n')[0], '#!/usr/bin/env node');
  });

  it('loads Google clients only in the commands that use them (help, settings check: none)', async () => {
    for (const args of [['--help'], ['settings', 'check']]) {
      const r = await cliLoads(args);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.packages.includes('commander'), `the hook saw the loads: ${r.packages.join(', ')}`);
      const google = r.packages.filter((p) => /^(@google-cloud\/|google-|@grpc\/|@pulumi\/)/.test(p));
      assert.deepEqual(google, [], `${args.join(' ')} loaded ${google.join(', ')}`);
    }
  });

  it('a reader that closes the pipe early (| head) ends the CLI quietly, exit 0', async () => {
    const child = spawn(process.execPath, [join(root, 'cli/main.ts'), 'settings', 'check'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Close our end before the CLI writes: its write gets EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const [code] = (await once(child, 'close')) as [number | null];
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });

  it('sql prints the rows of the configured BigQuery endpoint as JSON and exits', async () => {
    const bq = await fakeBigQuery((path) => ({
      status: 200,
      // The dry run (jobs.insert) that checks the statement is a SELECT, then jobs.query.
      body: path.includes('/jobs')
        ? {
            kind: 'bigquery#job',
            jobReference: { projectId: 'local-project', location: 'EU' },
            status: { state: 'DONE' },
            statistics: { query: { statementType: 'SELECT', totalBytesProcessed: '0' } },
          }
        : {
            kind: 'bigquery#queryResponse',
            schema: { fields: [{ name: 'n', type: 'INTEGER', mode: 'NULLABLE' }] },
            jobReference: { projectId: 'local-project', jobId: 'j1', location: 'EU' },
            totalRows: '1',
            rows: [{ f: [{ v: '42' }] }],
            jobComplete: true,
          },
    }));
    try {
      const r = await cliWithEnv(['sql', 'SELECT 42 AS n', '--format', 'json'], {
        BIGQUERY_EMULATOR_HOST: bq.url,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), [{ n: 42 }]);
    } finally {
      await bq.close();
    }
  });

  it('sql against an emulator that fails reports it after one request (no client retries)', async () => {
    const bq = await fakeBigQuery(() => ({
      status: 503,
      body: { error: { code: 503, message: 'emulator unavailable', status: 'UNAVAILABLE' } },
    }));
    try {
      const r = await cliWithEnv(['sql', 'SELECT 1'], { BIGQUERY_EMULATOR_HOST: bq.url });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^error: .*emulator unavailable/m);
      assert.equal(bq.requests(), 1);
    } finally {
      await bq.close();
    }
  });
});

/** A BigQuery stand-in on loopback: answers every request with `answer()`, keeps connections alive. */
async function fakeBigQuery(answer: (path: string) => { status: number; body: unknown }) {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => {
      const a = answer(req.url ?? '/');
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
    });
  });
  server.keepAliveTimeout = 600_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function cliWithEnv(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(root, 'cli/main.ts'), ...args],
      { cwd: root, env: { ...process.env, ...env } },
      (err, stdout, stderr) =>
        done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
