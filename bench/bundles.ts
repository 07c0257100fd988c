/**
 * Bundle size and load time of each deployable (aim: load < 150 ms). Load time is what a cold
 * instance pays before serving: a fresh `node` process require()s the bundle (functions also
 * register their target in the framework). Baseline: the same process loading only the
 * functions framework, the floor every function pays.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseSettings } from '../functions/core/settings.ts';
import { BUNDLES, buildBundles, FRAMEWORK, linkFramework, REPO_ROOT } from '../scripts/build-functions.ts';
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

function loadMs(modulePath: string, env: Record<string, string>): number[] {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const out = execFileSync(process.execPath, ['-e', LOADER], {
      env: { PATH: process.env['PATH'] ?? '', ...env, BENCH_MODULE: modulePath },
      timeout: 20_000,
    });
    times.push(Number(out.toString()));
  }
  return times;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export const suite: BenchSuite = {
  name: 'bundles: size and load time of each deployable',
  async run(): Promise<BenchFigure[]> {
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
      };
      const frameworkOnly = median(loadMs(join(REPO_ROOT, 'node_modules', FRAMEWORK), env));
      const figures: BenchFigure[] = [];
      for (const spec of specs) {
        const built = manifest[spec.name]!;
        const dir = resolve(REPO_ROOT, built.dir);
        if (spec.kind === 'function') linkFramework(dir);
        const times = loadMs(join(dir, built.main), env);
        const sorted = [...times].sort((a, b) => a - b);
        figures.push({
          name: `${spec.name} bundle load (require in a fresh node)`,
          value: median(times),
          unit: 'ms',
          baseline: { name: 'functions framework alone', value: frameworkOnly },
          target: { op: '<=', value: TARGET_MS },
          detail: `min ${sorted[0]?.toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms over ${RUNS} runs; archive ${(built.bytes / 1024).toFixed(0)} KiB (${built.object})`,
        });
        figures.push({ name: `${spec.name} archive size`, value: built.bytes / 1024, unit: 'KiB' });
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
  for (const f of await suite.run()) console.log(formatFigure(f));
}
