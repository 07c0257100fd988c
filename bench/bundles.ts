/**
 * Bundle size and load time of each deployable (aim: load < 150 ms). Load time is what a cold
 * instance pays before serving: a fresh `node` process require()s the bundle (functions also
 * register their target in the framework). Baseline: the same process loading only the
 * functions framework, the floor every function pays.
 *
 * The gateway's Google clients are vendor files loaded on first use, not by the require above:
 * so that the cost is shown, not hidden, each vendor file's own load and the gateway's whole
 * start (`node main.js` until it logs that it listens; the Pub/Sub file loads after that) are
 * reported too, without a target.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseSettings } from '../core/settings.ts';
import {
  BUNDLES,
  buildBundles,
  FRAMEWORK,
  linkFramework,
  REPO_ROOT,
  SERVICE_VENDOR_GROUPS,
} from '../scripts/build-functions.ts';
import type { BenchFigure, BenchSuite } from './lib.ts';

const RUNS = 5;
const TARGET_MS = 150;

// Runs in a fresh process: time only the require(), not Node's own start.
const LOADER = [
  'const t0 = process.hrtime.bigint();',
  'require(process.env.BENCH_MODULE);',
  'process.stdout.write(String(Number(process.hrtime.bigint() - t0) / 1e6));',
  // Whatever the module opened (timers, sockets) must not keep the measurement alive.
  'process.exit(0);',
].join('\n');

function loadMs(modulePath: string, env: Record<string, string>, runs: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, ['-e', LOADER], {
      env: { PATH: process.env['PATH'] ?? '', ...env, BENCH_MODULE: modulePath },
      timeout: 20_000,
    });
    times.push(Number(out.toString()));
  }
  return times;
}

/** `node main.js` in `dir` (PORT=0) until it logs that it listens, in ms; the child is killed. */
async function startMs(dir: string, main: string, env: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [main], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', ...env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  try {
    return await new Promise<number>((resolveStart, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`${main} did not listen within 20 s:\n${out}`)),
        20_000,
      );
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('listening')) {
          clearTimeout(timer);
          resolveStart(performance.now() - t0);
        }
      });
      child.stderr.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${main} exited (${code}) before listening:\n${out}`));
      });
    });
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export const suite: BenchSuite = {
  name: 'bundles: size and load time of each deployable',
  async run({ quick }): Promise<BenchFigure[]> {
    // Quick mode: every bundle built, loaded and started once (that it works, not its speed).
    const runs = quick ? 1 : RUNS;
    const local = parseSettings(readFileSync(join(REPO_ROOT, 'environments/local.yaml'), 'utf8'));
    if (!local.ok) throw new Error('environments/local.yaml is invalid');
    const out = mkdtempSync(join(tmpdir(), 'eventbus-bench-bundles-'));
    try {
      const specs = BUNDLES.filter((b) => existsSync(join(REPO_ROOT, b.entry)));
      const manifest = await buildBundles({ specs, outDir: out });
      const env = {
        NODE_ENV: 'production',
        EVENTBUS_SETTINGS: JSON.stringify(local.settings),
        GOOGLE_CLOUD_PROJECT: local.settings.project,
        METADATA_SERVER_DETECTION: 'none',
        EVENTBUS_TOKEN_STORE: `file:${join(out, 'tokens.json')}`,
        // The studio's (created when missing); without it the studio refuses to start.
        EVENTBUS_ADMIN_TOKEN_FILE: join(out, 'admin-token'),
      };
      const frameworkOnly = median(loadMs(join(REPO_ROOT, 'node_modules', FRAMEWORK), env, runs));
      const figures: BenchFigure[] = [];
      for (const spec of specs) {
        const built = manifest[spec.name]!;
        const dir = resolve(REPO_ROOT, built.dir);
        if (spec.kind === 'function') linkFramework(dir);
        const times = loadMs(join(dir, built.main), env, runs);
        const sorted = [...times].sort((a, b) => a - b);
        figures.push({
          name: `${spec.name} bundle load (require in a fresh node)`,
          value: median(times),
          unit: 'ms',
          baseline: { name: 'functions framework alone', value: frameworkOnly },
          target: { op: '<=', value: TARGET_MS },
          detail: `min ${sorted[0]?.toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms over ${runs} runs; archive ${(built.bytes / 1024).toFixed(0)} KiB (${built.object})`,
        });
        figures.push({ name: `${spec.name} archive size`, value: built.bytes / 1024, unit: 'KiB' });
        if (spec.kind !== 'service') continue;
        for (const group of SERVICE_VENDOR_GROUPS) {
          const file = join(dir, group.file);
          if (!existsSync(file)) continue;
          const t = loadMs(file, env, runs);
          figures.push({
            name: `${spec.name} ${group.file} load (first use: ${group.packages.join(', ')})`,
            value: median(t),
            unit: 'ms',
            detail: `min ${Math.min(...t).toFixed(1)} ms, max ${Math.max(...t).toFixed(1)} ms; not part of the load above`,
          });
        }
        const starts: number[] = [];
        // Emulator host: nothing listens there; the start must not need the bus.
        for (let i = 0; i < runs; i++)
          starts.push(await startMs(dir, built.main, { ...env, PUBSUB_EMULATOR_HOST: '127.0.0.1:9' }));
        figures.push({
          name: `${spec.name} start until listening (node ${built.main})`,
          value: median(starts),
          unit: 'ms',
          detail: `min ${Math.min(...starts).toFixed(1)} ms, max ${Math.max(...starts).toFixed(1)} ms; includes Node's own start`,
        });
      }
      const missing = BUNDLES.filter((b) => !specs.includes(b)).map((b) => b.entry);
      if (missing.length > 0) console.log(`  (not built yet: ${missing.join(', ')})`);
      return figures;
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
};

if (import.meta.main) {
  const { formatFigure } = await import('./lib.ts');
  for (const f of await suite.run({ quick: process.argv.includes('--quick') })) console.log(formatFigure(f));
}
