import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { plan } from '../../core/plan.ts';
import { parseSettings } from '../../core/settings.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { issueToken } from '../../gateway/credentials.ts';
import { fileTokenStore } from '../../gateway/token-store.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import {
  BUNDLES,
  type BundleSpec,
  buildBundles,
  FUNCTION_EXTERNALS,
  REPO_ROOT,
  SERVICE_VENDOR_GROUPS,
} from '../../scripts/build-functions.ts';
import { startBus } from '../gateway/emulator-support.ts';
import { settingsText } from './support.ts';
import { FRAMEWORK_CLI, freePort, linkFramework, startAndProbe } from './support-bundles.ts';

const HELLO: BundleSpec = {
  name: 'hello',
  entry: 'test/fixtures/functions/hello/index.ts',
  kind: 'function',
};
const HELLO_SERVICE: BundleSpec = {
  name: 'hello-service',
  entry: 'test/fixtures/functions/hello/index.ts',
  kind: 'service',
};
const has = (tool: string) => existsSync(`/usr/bin/${tool}`) || existsSync(`/bin/${tool}`);

describe('bundles: npm run build:functions', function () {
  this.timeout(60_000);
  let out: string;
  // A loopback stand-in for BigQuery's REST calls and Cloud Storage, so the functions answer at
  // once instead of retrying a dead endpoint; it records which paths the bundles called. The
  // Storage Write API (store's rows, over gRPC) goes to a real BigQuery emulator.
  let bigquery: Server;
  let bigqueryUrl: string;
  const bigqueryCalls: string[] = [];
  let warehouse: BigQueryEmulator;
  before(async () => {
    out = mkdtempSync(join(tmpdir(), 'eventbus-bundles-'));
    warehouse = await startBigQueryEmulator({ port: 0, dataDir: join(out, 'bigquery') });
    if (local.ok)
      await provision(plan(local.settings), {
        project: local.settings.project,
        bigquery: warehouse.url,
        functionUrl: () => 'http://127.0.0.1:9/',
      });
    bigquery = createServer((req, res) => {
      bigqueryCalls.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => {
        // Cloud Storage (the same fake): no object exists, such as the erased persons' list.
        if (req.url?.startsWith('/storage/v1/')) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end('{"error":{"code":404,"message":"No such object"}}');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"kind":"bigquery#tableDataInsertAllResponse"}');
      });
    });
    await new Promise<void>((r) => bigquery.listen(0, '127.0.0.1', () => r()));
    const address = bigquery.address();
    bigqueryUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(async () => {
    await new Promise<void>((r) => bigquery.close(() => r()));
    await warehouse.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('bundles CommonJS with the functions framework external and listed in the bundle’s package.json', async () => {
    const manifest = await buildBundles({ specs: [HELLO], outDir: out });
    const hello = manifest['hello']!;
    const code = readFileSync(resolve(REPO_ROOT, hello.dir, 'index.js'), 'utf8');
    assert.match(code, /require\("@google-cloud\/functions-framework"\)/);
    assert.ok(code.includes('hello, '), 'the local import is inlined');
    assert.doesNotMatch(code, /^export |import\.meta/m, 'no ESM left in a CommonJS bundle');
    const pkg = JSON.parse(readFileSync(resolve(REPO_ROOT, hello.dir, 'package.json'), 'utf8'));
    assert.equal(pkg.main, 'index.js');
    assert.deepEqual(Object.keys(pkg.dependencies), FUNCTION_EXTERNALS);
    for (const name of FUNCTION_EXTERNALS)
      assert.match(pkg.dependencies[name], /^\^?\d/, `${name} has a version`);
    assert.equal(pkg.type, undefined, 'package.json must not make index.js ESM');
    assert.match(hello.object, /^hello-[0-9a-f]{16}\.zip$/);
    assert.ok(existsSync(resolve(REPO_ROOT, hello.archive)));
    const listed = JSON.parse(readFileSync(join(out, 'bundles.json'), 'utf8'));
    assert.equal(listed.hello.object, hello.object);
  });

  it('names archives by content: the same sources give the same object, a change a new one', async () => {
    const a = (await buildBundles({ specs: [HELLO], outDir: out }))['hello']!;
    const b = (await buildBundles({ specs: [HELLO], outDir: out }))['hello']!;
    assert.equal(a.object, b.object);
    assert.deepEqual(
      readFileSync(resolve(REPO_ROOT, a.archive)),
      readFileSync(resolve(REPO_ROOT, b.archive)),
    );
    const other = (
      await buildBundles({
        specs: [{ ...HELLO, entry: 'test/fixtures/functions/hello/greeting.ts' }],
        outDir: out,
      })
    )['hello']!;
    assert.notEqual(other.object, a.object);
  });

  it('writes archives that standard tools read back unchanged (zip for functions, tar.gz for the gateway)', async function () {
    const manifest = await buildBundles({ specs: [HELLO, HELLO_SERVICE], outDir: out });
    const fn = manifest['hello']!;
    const svc = manifest['hello-service']!;
    assert.match(svc.object, /^hello-service-[0-9a-f]{16}\.tar\.gz$/);
    const fromTar = execFileSync('tar', ['-xzOf', resolve(REPO_ROOT, svc.archive), 'main.js']);
    assert.deepEqual(fromTar, readFileSync(resolve(REPO_ROOT, svc.dir, 'main.js')));
    if (!has('unzip')) this.skip();
    execFileSync('unzip', ['-tq', resolve(REPO_ROOT, fn.archive)]);
    const fromZip = execFileSync('unzip', ['-p', resolve(REPO_ROOT, fn.archive), 'index.js']);
    assert.deepEqual(fromZip, readFileSync(resolve(REPO_ROOT, fn.dir, 'index.js')));
  });

  it('fails naming a missing entry module', async () => {
    await assert.rejects(
      buildBundles({ specs: [{ ...HELLO, entry: 'functions/nope/index.ts' }], outDir: out }),
      /functions\/nope\/index\.ts/,
    );
  });

  it('runs under the real functions-framework CLI and answers', async () => {
    const manifest = await buildBundles({ specs: [HELLO], outDir: out });
    const dir = resolve(REPO_ROOT, manifest['hello']!.dir);
    linkFramework(dir);
    const port = await freePort();
    const running = await startAndProbe(
      [FRAMEWORK_CLI, '--target=hello', '--signature-type=http', `--port=${port}`],
      {
        cwd: dir,
        env: { NODE_ENV: 'production' },
        port,
        tcp: true,
      },
    );
    try {
      const res = await fetch(`${running.url}/?name=bundle`);
      assert.equal(res.status, 200, running.output());
      assert.deepEqual(await res.json(), { greeting: 'hello, bundle' });
    } finally {
      await running.stop();
    }
  });

  it('keeps Segment’s code out of forward’s bundle (issue #65: it lives in forward-catalog only)', async () => {
    const built = (await buildBundles({ specs: BUNDLES.filter((b) => b.name === 'forward'), outDir: out }))[
      'forward'
    ]!;
    const dir = resolve(REPO_ROOT, built.dir);
    const code = readFileSync(join(dir, 'index.js'), 'utf8');
    assert.doesNotMatch(
      code,
      /^\/\/ (?:\S*\/)?node_modules\/@segment\//m,
      'no module of @segment/* is inlined',
    );
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    assert.deepEqual(Object.keys(pkg.dependencies), FUNCTION_EXTERNALS, 'nor installed beside it');
    assert.equal(existsSync(join(dir, 'segment-destinations')), false);
    assert.equal(built.segmentDestinations, undefined);
  });

  const local = parseSettings(settingsText('environments/local.yaml'));
  // The gateway's build (its vendor groups take seconds), shared by the two tests that only read it.
  let gatewayBuild: ReturnType<typeof buildBundles> | undefined;
  const buildGateway = () => {
    gatewayBuild ??= buildBundles({ specs: BUNDLES.filter((b) => b.name === 'gateway'), outDir: out });
    return gatewayBuild;
  };

  it('ships the gateway’s Google clients as vendor files that loading main.js does not read', async () => {
    const built = (await buildGateway())['gateway']!;
    const dir = resolve(REPO_ROOT, built.dir);
    const code = readFileSync(join(dir, 'main.js'), 'utf8');
    const listed = execFileSync('tar', ['-tzf', resolve(REPO_ROOT, built.archive)])
      .toString()
      .split('\n');
    // A group's file is shipped exactly when main.js requires it: the clients the gateway loads
    // (its credentials, the registry's Cloud Storage reader), not Pub/Sub's, which it no longer
    // loads (it publishes through adapters/grpc-unary.ts).
    const shipped = SERVICE_VENDOR_GROUPS.filter((g) => code.includes(`require("./${g.file}")`));
    assert.deepEqual(
      shipped.map((g) => g.file),
      ['vendor/google-auth.cjs', 'vendor/google-storage.cjs'],
    );
    for (const group of SERVICE_VENDOR_GROUPS) {
      const wanted = shipped.includes(group);
      assert.equal(existsSync(join(dir, group.file)), wanted, group.file);
      assert.equal(listed.includes(group.file), wanted, listed.join(' '));
    }
    // Parent directories are entries of their own, ahead of their files (not every unpacker creates them).
    assert.ok(listed.indexOf('vendor/') >= 0 && listed.indexOf('vendor/') < listed.indexOf(shipped[0]!.file));
    assert.doesNotMatch(
      code,
      /^\/\/ (?:\S*\/)?node_modules\/(@google-cloud\/pubsub|google-gax|@grpc\/grpc-js|google-auth-library)\//m,
    );
    // A plain require of the bundle (not the program: it does not listen) reads no vendor file.
    const loaded = execFileSync(
      process.execPath,
      [
        '-e',
        'require(process.argv[1]); process.stdout.write(JSON.stringify(Object.keys(require.cache)))',
        join(dir, 'main.js'),
      ],
      { env: { PATH: process.env['PATH'] ?? '' } },
    ).toString();
    const files = JSON.parse(loaded) as string[];
    assert.ok(files.some((f) => f.endsWith('main.js')));
    assert.deepEqual(
      files.filter((f) => f.includes('vendor')),
      [],
    );
  });

  it('the gateway unpacked from its archive alone publishes to a Pub/Sub emulator', async () => {
    assert.ok(local.ok);
    // What Cloud Run gets: the archive alone, unpacked, with no node_modules anywhere above it.
    const dir = join(out, 'unpacked-gateway');
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-xzf', resolve(REPO_ROOT, (await buildGateway())['gateway']!.archive), '-C', dir]);
    const project = local.settings.project;
    const bus = await startBus(project, ['events']);
    const tokens = join(out, 'publish-tokens.json');
    const token = await fileTokenStore(tokens).update((set) => {
      const r = issueToken(set, { scopes: ['publish:*'], rateLimitPerSecond: 1000 }, randomBytes, new Date());
      return { set: r.set, result: r.secret };
    });
    const port = await freePort();
    const running = await startAndProbe(['main.js'], {
      cwd: dir,
      env: {
        NODE_ENV: 'production',
        EVENTBUS_SETTINGS: JSON.stringify(local.settings),
        GOOGLE_CLOUD_PROJECT: project,
        METADATA_SERVER_DETECTION: 'none',
        EVENTBUS_TOKEN_STORE: `file:${tokens}`,
        PUBSUB_EMULATOR_HOST: bus.host,
        PORT: String(port),
        HOST: '127.0.0.1',
      },
      port,
      path: '/health',
    });
    try {
      const res = await fetch(`${running.url}/v1/topics/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ event_name: 'search', search_term: 'from the bundle' }),
      });
      const body = (await res.json()) as { messageIds?: string[] };
      assert.equal(res.status, 200, `${JSON.stringify(body)}\n${running.output()}`);
      const got = await bus.drain('events');
      assert.deepEqual(
        got.map((m) => m.messageId),
        body.messageIds,
      );
      assert.equal(JSON.parse(got[0]?.data ?? '{}').event_data?.search_term, 'from the bundle');
    } finally {
      await running.stop();
      await bus.close();
    }
  });

  // The real deployables, as far as their entry modules exist yet (other issues write them).
  for (const spec of BUNDLES) {
    const present = existsSync(join(REPO_ROOT, spec.entry));
    (present ? it : it.skip)(
      `builds ${spec.entry} and it answers once started as in production`,
      async () => {
        assert.ok(local.ok);
        const manifest = await buildBundles({ specs: [spec], outDir: out });
        const built = manifest[spec.name]!;
        const dir = resolve(REPO_ROOT, built.dir);
        const port = await freePort();
        const env = {
          NODE_ENV: 'production',
          EVENTBUS_SETTINGS: JSON.stringify(local.settings),
          GOOGLE_CLOUD_PROJECT: local.settings.project,
          METADATA_SERVER_DETECTION: 'none',
          EVENTBUS_TOKEN_STORE: `file:${join(out, 'tokens.json')}`,
          // The studio: its admin token file (made at start), and IAP's audience as Pulumi sets it.
          EVENTBUS_ADMIN_TOKEN_FILE: join(out, 'admin-token'),
          EVENTBUS_IAP_AUDIENCE: '/projects/123456789012/locations/europe-west1/services/studio',
          // Nothing listens here: the bundle must start and answer without a Pub/Sub backend.
          PUBSUB_EMULATOR_HOST: '127.0.0.1:9',
          BIGQUERY_EMULATOR_HOST:
            spec.name === 'store' || spec.serves === 'store' ? warehouse.url : bigqueryUrl,
          STORAGE_EMULATOR_HOST: bigqueryUrl,
          PORT: String(port),
          HOST: '127.0.0.1',
        };
        // A function run as a Cloud Run service answers like the function: no /health of its own.
        const health = spec.kind === 'service' && spec.serves === undefined;
        let args: string[];
        if (spec.kind === 'function') {
          linkFramework(dir);
          args = [FRAMEWORK_CLI, `--target=${spec.name}`, '--signature-type=http', `--port=${port}`];
        } else {
          args = [built.main];
        }
        const running = await startAndProbe(args, {
          cwd: dir,
          env,
          port,
          ...(health ? { path: '/health' } : { tcp: true }),
        });
        try {
          const res = await fetch(`${running.url}${health ? '/health' : '/'}`, {
            method: health ? 'GET' : 'POST',
            ...(health ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }),
          });
          const body = await res.text();
          assert.doesNotMatch(
            body,
            /is not defined/,
            'the target is registered in the framework the CLI runs',
          );
          if (health) assert.equal(res.status, 200, running.output());
          else assert.ok(res.status >= 200 && res.status < 600, running.output());
          if (spec.tag) {
            // The first-party tag comes prebuilt (no esbuild where the gateway runs).
            const tag = await fetch(`${running.url}/v1/tag.js`);
            assert.equal(tag.status, 200, running.output());
            assert.equal(tag.headers.get('content-type')?.split(';')[0], 'text/javascript');
            assert.match(await tag.text(), /analytics/);
            assert.ok(existsSync(join(dir, 'tag.js')), 'carried in the archive');
            // Its consent platform reader too, which the tag loads on a page with a CMP.
            const reader = await fetch(`${running.url}/v1/tag-cmp.js`);
            assert.equal(reader.status, 200, running.output());
            assert.ok(existsSync(join(dir, 'tag-cmp.js')), 'the reader carried in the archive');
          }
          if (spec.web) {
            // The pages come prebuilt from web/ (no esbuild where the studio runs).
            const page = await fetch(`${running.url}/`);
            assert.match(await page.text(), /<script[^>]+assets\/creator\.js/);
            const script = await fetch(`${running.url}/assets/creator.js`);
            assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
            assert.ok((await script.text()).length > 10_000, 'the creator’s script is bundled');
            assert.ok(existsSync(join(dir, 'web', 'creator.js')), 'carried in the archive');
            // The source catalogue the creator offers is built in too (no sources/ where it runs).
            const sources = (await (await fetch(`${running.url}/assets/sources.json`)).json()) as {
              name: string;
            }[];
            assert.ok(
              sources.some((x) => x.name === 'stripe'),
              'the catalogue is carried',
            );
          }
          if (spec.name === 'store' || spec.serves === 'store') {
            // The (lazily loaded) Storage Write API client really ran: a bad push body is kept.
            assert.ok(local.ok);
            const [rows] = await emulatorBigQuery(local.settings.project, warehouse.url).query(
              `SELECT COUNT(*) AS n FROM \`${local.settings.project}.${local.settings.dataset}.invalid_events\``,
            );
            assert.ok(Number(rows[0]?.n) > 0, running.output());
          }
        } finally {
          await running.stop();
        }
      },
    );
  }
});
