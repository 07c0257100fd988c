/**
 * The first hour of a new user, on a shared machine: one environment started with
 * `--port-offset` and its own `--data-dir`, and everything the README tells a user to do run
 * against it as written. The commands run with no emulator variables in their environment:
 * they must find the environment through its data dir. The README's blocks are read from
 * README.md itself, so the README and this test cannot drift apart; the only edits are the
 * data dir and the ports this test's environment uses.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pseudonymousId } from '../../core/linkage/transforms.ts';
import { freePort } from '../../local/ports.ts';
import { DEFAULT_PORTS } from '../../local/services.ts';
import { launchChromium } from '../support/chromium.ts';
import { until } from '../support/until.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The process environment without anything that would point a command at an environment. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // npm scripts and bash blocks run on the pinned Node 24, as `npm run` gives a user.
    PATH: `${join(root, 'node_modules/.bin')}:${process.env['PATH'] ?? ''}`,
  };
  for (const name of [
    'PUBSUB_EMULATOR_HOST',
    'BIGQUERY_EMULATOR_HOST',
    'STORAGE_EMULATOR_HOST',
    'GOOGLE_CLOUD_PROJECT',
    'EVENTBUS_TOKEN_STORE',
    'METADATA_SERVER_DETECTION',
  ])
    delete env[name];
  return env;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[], cwd = root): Promise<Run> {
  return new Promise((done) => {
    execFile(command, [...args], { cwd, env: cleanEnv(), timeout: 60000 }, (err, stdout, stderr) => {
      const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
      done({ code: Number.isNaN(code) ? 1 : code, stdout, stderr });
    });
  });
}

const eventbus = (...args: string[]) => run(process.execPath, [join(root, 'cli/main.ts'), ...args]);

/** Fenced blocks of a language in the README, in order. */
function blocks(lang: string): string[] {
  return [...readme.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (m) => m[1] as string,
  );
}

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createTcpServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/**
 * An offset that puts every default port on a free port below 20000: under the range freePort
 * hands out to the other tests' services (20000–32000, local/ports.ts), which run at the same
 * time and once took a port this environment had found free (EADDRINUSE), and under the kernel's
 * outgoing range.
 */
async function freeOffset(): Promise<number> {
  const highest = Math.max(...Object.values(DEFAULT_PORTS));
  for (let tries = 0; tries < 50; tries++) {
    const offset = 2_000 + Math.floor(Math.random() * (20_000 - highest - 2_000));
    const free = await Promise.all(Object.values(DEFAULT_PORTS).map((p) => portFree(p + offset)));
    if (free.every(Boolean)) return offset;
  }
  throw new Error('no free port offset');
}

const METADATA_PROBE = /MetadataLookupWarning|metadata server/i;

describe('end to end: the first hour, as the README says, beside another environment', function () {
  this.timeout(180000);
  let child: ChildProcess | undefined;
  let dataDir = '';
  let output = '';
  let offset = 0;
  const port = (name: keyof typeof DEFAULT_PORTS) => DEFAULT_PORTS[name] + offset;

  /** A README command line as run against this test's environment (its data dir and ports). */
  const localised = (text: string) =>
    text
      .replaceAll('.data/', `${dataDir}/`)
      .replace(/npm run cli -- (sql|replay|token \w+|key \w+)/g, `npm run cli -- $1 --data-dir ${dataDir}`)
      .replace(/127\.0\.0\.1:(\d+)/g, (_, p: string) => {
        const name = (Object.keys(DEFAULT_PORTS) as (keyof typeof DEFAULT_PORTS)[]).find(
          (k) => DEFAULT_PORTS[k] === Number(p),
        );
        return `127.0.0.1:${name ? port(name) : p}`;
      });

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'eventbus-first-hour-'));
    offset = await freeOffset();
    child = spawn(
      process.execPath,
      [join(root, 'cli/main.ts'), 'start', '--port-offset', String(offset), '--data-dir', dataDir],
      { cwd: root, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const collect = (b: Buffer) => {
      output += b.toString();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    await until(
      'the development token',
      async () => {
        if (child?.exitCode !== null) throw new Error(`start exited early:\n${output}`);
        return /development token/.test(output) ? true : undefined;
      },
      90000,
    );
  });

  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('records where each service listens in the data dir', () => {
    const record = JSON.parse(readFileSync(join(dataDir, 'environment.json'), 'utf8')) as {
      pid: number;
      ports: Record<string, number>;
      pubsubHost: string;
    };
    assert.equal(record.pid, child?.pid);
    assert.equal(record.ports['bigquery'], DEFAULT_PORTS.bigquery + offset);
    assert.equal(record.pubsubHost, `127.0.0.1:${DEFAULT_PORTS.pubsub + offset}`);
  });

  it('a second start on the same ports exits non-zero before any "ready" line, naming the port', async () => {
    const other = mkdtempSync(join(tmpdir(), 'eventbus-first-hour-2-'));
    try {
      const r = await eventbus('start', '--port-offset', String(offset), '--data-dir', other);
      assert.notEqual(r.code, 0);
      assert.doesNotMatch(r.stdout + r.stderr, /\bready\b/);
      assert.match(r.stderr, new RegExp(`pubsub: port ${port('pubsub')} .* already in use`));
      assert.ok(!existsSync(join(other, 'environment.json')));
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('an out-of-range --port-offset is one line of error, no stack trace', async () => {
    const r = await eventbus('start', '--port-offset', '60000');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--port-offset.*expected an integer 0–\d+/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });

  it("runs the README's first events (curl, both forms) and finds them with its sql commands", async () => {
    const section = readme.slice(readme.indexOf('## Your first event'));
    const curls = blocks('bash').find((b) => section.includes(b) && b.includes('curl'));
    assert.ok(curls, 'the README has a curl block under "Your first event"');
    const r = await run('bash', ['-euo', 'pipefail', '-c', localised(curls)]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.match(/"messageIds":\["[^"]+"\]/g)?.length, 2, r.stdout);

    const sqlBlock = blocks('bash').find((b) => section.includes(b) && b.includes('cli -- sql'));
    assert.ok(sqlBlock);
    const [viewed, deliveries] = sqlBlock.trim().split('\n');
    const rows = await until('the README event in view_content', async () => {
      const q = await run('bash', ['-c', `${localised(viewed as string)} --format json`]);
      assert.equal(q.code, 0, q.stderr);
      assert.doesNotMatch(q.stderr, METADATA_PROBE);
      // npm prints its own header line before the command's output.
      const all = JSON.parse(q.stdout.slice(q.stdout.indexOf('['))) as { content_name: string }[];
      const found = all.filter((row) => row.content_name === 'Red Shoe');
      return found.length > 0 ? found : undefined;
    });
    assert.equal(rows.length, 1);
    const d = await run('bash', ['-c', localised(deliveries as string)]);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /destination/);
  });

  it('sql, replay and token list find the environment through --data-dir, with no metadata probe', async () => {
    const sql = await eventbus('sql', '--data-dir', dataDir, '--format', 'json', 'SELECT 1 AS n');
    assert.equal(sql.code, 0, sql.stderr);
    assert.deepEqual(JSON.parse(sql.stdout), [{ n: 1 }]);
    assert.doesNotMatch(sql.stderr, METADATA_PROBE);

    const replay = await eventbus(
      'replay',
      '--events-dead-letters',
      '--data-dir',
      dataDir,
      '--format',
      'json',
    );
    assert.equal(replay.code, 0, replay.stderr);
    assert.doesNotMatch(replay.stderr, METADATA_PROBE);

    const tokens = await eventbus('token', 'list', '--data-dir', dataDir, '--format', 'json');
    assert.equal(tokens.code, 0, tokens.stderr);
    assert.match(tokens.stdout, /publish:\*/);
  });

  it("the README's client code reads the warehouse through BIGQUERY_EMULATOR_HOST", async () => {
    const code = blocks('js').find((b) => b.includes('BigQuery'));
    assert.ok(code, 'the README has a BigQuery client example');
    const r = await new Promise<Run>((done) => {
      execFile(
        process.execPath,
        ['--input-type=module', '-e', `${code}\nconsole.log(JSON.stringify(rows));`],
        { cwd: root, env: { ...cleanEnv(), BIGQUERY_EMULATOR_HOST: `http://127.0.0.1:${port('bigquery')}` } },
        (err, stdout, stderr) => done({ code: err ? 1 : 0, stdout, stderr }),
      );
    });
    assert.equal(r.code, 0, r.stderr);
    const rows = JSON.parse(r.stdout) as { event_name: string; n: number }[];
    assert.ok(
      rows.some((row) => row.event_name === 'view_content' && row.n >= 1),
      r.stdout,
    );
  });

  it('a command pointed at a data dir with no environment says so instead of guessing ports', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'eventbus-first-hour-none-'));
    try {
      const r = await eventbus('sql', '--data-dir', empty, 'SELECT 1');
      assert.equal(r.code, 1);
      assert.match(r.stderr, /no local environment is running with data dir/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("the README's preview line works on the example event that ships in the repo", async () => {
    const line = blocks('bash')
      .flatMap((b) => b.split('\n'))
      .find((l) => l.includes('cli -- preview'));
    assert.ok(line, 'the README has a preview line');
    const file = /(\S+\.json)/.exec(line)?.[1] as string;
    assert.ok(existsSync(join(root, file)), `${file} ships in the repo`);
    for (const destination of ['meta', 'ga4', 'tiktok', 'webhook']) {
      const r = await run('bash', ['-c', localised(line.replace(/#.*$/, '').replace('meta', destination))]);
      assert.equal(r.code, 0, `${destination}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout, /^POST http/m, `${destination}: ${r.stdout}`);
    }
  });

  it("the README's browser snippet, in Chromium with a write key, reaches GA4", async () => {
    const html = blocks('html')[0];
    assert.ok(html, 'the README has a browser snippet');
    const pagePort = await freePort();
    const origin = `http://127.0.0.1:${pagePort}`;
    const created = await eventbus('key', 'create', '--origin', origin, '--data-dir', dataDir);
    assert.equal(created.code, 0, created.stderr);
    const key = /ebk_[A-Za-z0-9_-]+/.exec(created.stdout)?.[0] as string;
    assert.ok(key, created.stdout);
    const page = html
      .replace('https://gateway.example.com', `http://127.0.0.1:${port('gateway')}`)
      .replace('ebk_…', key);
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><html><body>${page}</body></html>`);
    });
    await new Promise<void>((r) => server.listen(pagePort, '127.0.0.1', r));
    const browser = await launchChromium();
    try {
      // A person's browser, not a headless one: store flags HeadlessChrome as a bot and the
      // platforms skip bots by default (docs/enrichment.md, "Bots").
      const tab = await browser.newPage({
        userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version()} Safari/537.36`,
      });
      const errors: string[] = [];
      tab.on('pageerror', (e) => errors.push(e.message));
      // The gateway may take a moment to see the new key (it re-reads its store): reload until sent.
      const anonymous = await until('the snippet to run', async () => {
        await tab.goto(`${origin}/`);
        return tab.evaluate(() => Object.values(localStorage).find((v) => /^[0-9a-f-]{36}$/.test(v)));
      });
      assert.deepEqual(errors, []);
      await until(
        'GA4 to receive the browser event',
        async () => {
          const res = await fetch(`http://127.0.0.1:${port('receiver')}/received.json`);
          const list = (await res.json()) as { received: { destination: string; body: unknown }[] };
          // GA4's client id: the `_ga` one the gateway derives from the tag's id (storage granted,
          // no gtag.js on the page), else the tag's id itself (docs/browser.md, "Ids the server sets").
          const ids = [anonymous, pseudonymousId(anonymous)];
          return list.received.some(
            (r) =>
              r.destination === 'ga4' &&
              ids.some((id) => JSON.stringify(r.body).includes(`"client_id":"${id}"`)),
          )
            ? true
            : undefined;
        },
        45000,
      );
    } finally {
      await browser.close();
      await new Promise((r) => server.close(r));
    }
  });

  it('a clean stop removes the record; then commands say no environment is running', async () => {
    const proc = child as ChildProcess;
    proc.kill('SIGINT');
    await until('start to exit', async () => (proc.exitCode !== null ? true : undefined), 30000);
    assert.equal(proc.exitCode, 0, output);
    assert.ok(!existsSync(join(dataDir, 'environment.json')));
    const r = await eventbus('sql', '--data-dir', dataDir, 'SELECT 1');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no local environment is running/);
  });
});
