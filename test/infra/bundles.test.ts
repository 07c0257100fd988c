import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseSettings } from '../../functions/core/settings.ts';
import {
  BUNDLES,
  type BundleSpec,
  buildBundles,
  FUNCTION_EXTERNALS,
  REPO_ROOT,
} from '../../scripts/build-functions.ts';
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
  // A loopback stand-in for BigQuery's insertAll, so the functions answer at once instead of
  // retrying a dead endpoint; it records which paths the bundles called.
  let bigquery: Server;
  let bigqueryUrl: string;
  const bigqueryCalls: string[] = [];
  before(async () => {
    out = mkdtempSync(join(tmpdir(), 'eventbus-bundles-'));
    bigquery = createServer((req, res) => {
      bigqueryCalls.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => {
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

  // The real deployables, as far as their entry modules exist yet (other issues write them).
  const local = parseSettings(settingsText('environments/local.yaml'));
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
          // Nothing listens here: the bundle must start and answer without a Pub/Sub backend.
          PUBSUB_EMULATOR_HOST: '127.0.0.1:9',
          BIGQUERY_EMULATOR_HOST: bigqueryUrl,
          PORT: String(port),
          HOST: '127.0.0.1',
        };
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
          ...(spec.kind === 'service' ? { path: '/health' } : { tcp: true }),
        });
        try {
          const res = await fetch(`${running.url}${spec.kind === 'service' ? '/health' : '/'}`, {
            method: spec.kind === 'service' ? 'GET' : 'POST',
            ...(spec.kind === 'service'
              ? {}
              : { headers: { 'content-type': 'application/json' }, body: '{}' }),
          });
          const body = await res.text();
          assert.doesNotMatch(
            body,
            /is not defined/,
            'the target is registered in the framework the CLI runs',
          );
          if (spec.kind === 'service') assert.equal(res.status, 200, running.output());
          else assert.ok(res.status >= 200 && res.status < 600, running.output());
          if (spec.name === 'store') {
            // The bundled (lazily loaded) BigQuery client really ran: a bad push body is kept.
            assert.ok(
              bigqueryCalls.some((c) => c.includes('/tables/invalid_events/insertAll')),
              `${bigqueryCalls.join('\n')}\n${running.output()}`,
            );
          }
        } finally {
          await running.stop();
        }
      },
    );
  }
});
