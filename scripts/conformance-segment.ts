#!/usr/bin/env node
/**
 * `npm run conformance:segment -- <checkout of segmentio/action-destinations> [--only a,b] [--jobs n] [--accept]`:
 * Segment's own unit tests as the oracle for our `segment_action` runtime (issue #78,
 * docs/catalog-destinations.md "Verified by Segment's own tests"). The checkout must be at the tag of
 * the installed `@segment/action-destinations` (`git checkout @segment/action-destinations@3.387.0`);
 * nothing of it is copied here: each destination's `__tests__` files are bundled at run time.
 *
 * Each destination's tests run twice in a worker of their own (scripts/conformance-segment/worker.ts):
 * as Segment runs them (actions-core's test integration), then with `testAction` running our runtime
 * (and `testBatchAction`, `executeBatch` its batch path: scripts/conformance-segment/batch.ts).
 * A case is runnable when it runs actions through those alone and passes Segment's own way
 * here; it then passes or fails ours (classify.ts gives the reasons): it passes when Segment's
 * assertions hold AND every request ours sends is the one Segment's own code sends for the same
 * input (wire.ts).
 *
 * The run fails (exit 1) when a case that passed in the committed results does not pass now, or a
 * case is not runnable for a reason that is not in the reviewed list
 * (scripts/conformance-segment/not-runnable.json, reason → count) or beyond its count (verdict.ts).
 * Only a run that holds (or one given `--accept`, for an update of the pinned version, whose
 * changes are then reviewed) writes docs/data/segment-conformance.json, the section of
 * docs/catalog-destinations.md it generates (table.ts) and the CI tier's data (replay.ts). `--only`
 * runs some destinations, judged the same way, and writes nothing. `--results` and `--reviewed`
 * name other files to judge against (the runner's own tests). Exit 2 on a usage error.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogManifest } from '../core/platforms/segment-action/catalog.ts';
import {
  type CaseResult,
  classify,
  declaredTests,
  destinationFigure,
  totalsOf,
  type WorkerLine,
} from './conformance-segment/classify.ts';
import {
  type NotReplayed,
  REPLAY_FILE,
  type ReplayCase,
  readReplay,
  replayCases,
  writeReplay,
} from './conformance-segment/replay.ts';
import { type ConformanceReport, conformanceSection, withSection } from './conformance-segment/table.ts';
import { type CommittedFigure, verdict } from './conformance-segment/verdict.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORKER = join(ROOT, 'scripts', 'conformance-segment', 'worker.ts');
export const REPORT_PATH = join(ROOT, 'docs', 'data', 'segment-conformance.json');
export const DOC_PATH = join(ROOT, 'docs', 'catalog-destinations.md');
export const REPLAY_DIR = join(ROOT, 'test', 'fixtures', 'segment-conformance');
export const REVIEWED_PATH = join(ROOT, 'scripts', 'conformance-segment', 'not-runnable.json');
/** One mode of one destination: a bound well above the slowest seen, under a loaded machine. */
const WORKER_TIMEOUT_MS = 10 * 60_000;

function usage(message: string): never {
  console.error(
    `${message}\nusage: npm run conformance:segment -- <checkout of segmentio/action-destinations> [--only slug,slug] [--jobs n] [--accept] [--replay] [--results file] [--reviewed file]`,
  );
  process.exit(2);
}

/**
 * The destination's test files as Segment's Jest finds them (its default `testMatch`, Segment's
 * `testPathIgnorePatterns`): every `*.test.ts` or `*.spec.ts` wherever it is (Webhook's are in
 * `__test__`, Snap's in `_tests_`), and any other TypeScript file under a `__tests__` folder;
 * `__helpers__` folders left out.
 */
function testFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, inTests: boolean) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === 'node_modules' || entry.name === '__helpers__' || entry.name === '__snapshots__')
          continue;
        walk(path, inTests || entry.name === '__tests__');
      } else if (/\.(test|spec)\.ts$/.test(entry.name) || (inTests && /\.tsx?$/.test(entry.name)))
        out.push(path);
    }
  };
  walk(dir, false);
  return out.sort();
}

function runWorker(
  mode: 'segment' | 'ours',
  slug: string,
  files: readonly string[],
  outFile: string,
): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WORKER, mode, slug, outFile, ...files], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, NODE_ENV: 'test' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), WORKER_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0)
        console.error(`${mode} ${slug}: worker ended (${code ?? signal})\n${stderr.slice(-800)}`);
      resolve();
    });
  });
}

function readLines(file: string): WorkerLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as WorkerLine);
}

/** The checkout's commit: `--commit`, else git's answer, else unknown. */
function commitOf(checkout: string, given: string | undefined): string {
  if (given) return given;
  const git = spawnSync('git', ['-C', checkout, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
  return git.status === 0 ? git.stdout.trim() : 'unknown';
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const valued = ['--only', '--jobs', '--results', '--reviewed'];
  const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const checkout = args.find((a, i) => !a.startsWith('--') && !valued.includes(args[i - 1] ?? ''));
  if (!checkout) usage('no checkout given');
  const only = args.includes('--only')
    ? new Set((args[args.indexOf('--only') + 1] ?? '').split(','))
    : undefined;
  const jobs = Math.max(1, Number(option('--jobs') ?? 2) || 2);
  const resultsPath = option('--results') ?? REPORT_PATH;
  const reviewedPath = option('--reviewed') ?? REVIEWED_PATH;
  const committed = existsSync(resultsPath)
    ? (JSON.parse(readFileSync(resultsPath, 'utf8')) as { destinations: CommittedFigure[] }).destinations
    : [];
  const reviewed = JSON.parse(readFileSync(reviewedPath, 'utf8')) as Record<string, number>;
  const pkgDir = existsSync(join(checkout, 'packages', 'destination-actions'))
    ? join(checkout, 'packages', 'destination-actions')
    : checkout;
  const destinationsDir = join(pkgDir, 'src', 'destinations');
  if (!existsSync(destinationsDir)) usage(`${checkout} has no packages/destination-actions/src/destinations`);
  const require = createRequire(join(ROOT, 'package.json'));
  const installed = (require('@segment/action-destinations/package.json') as { version: string }).version;
  const theirs = (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string })
    .version;
  if (theirs !== installed)
    usage(
      `the checkout is @segment/action-destinations ${theirs}, the installed package ${installed}: check out the tag @segment/action-destinations@${installed}`,
    );

  const installedSlugs = catalogManifest().destinations.map((d) => d.slug);
  const loadable = new Set(installedSlugs);
  const slugs = readdirSync(destinationsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && loadable.has(e.name) && (!only || only.has(e.name)))
    .map((e) => e.name)
    .sort();
  const tmp = mkdtempSync(join(tmpdir(), 'segment-conformance-'));
  const results = new Map<string, CaseResult[]>();
  const replays = new Map<string, (ReplayCase | NotReplayed)[]>();
  let next = 0;
  const work = async () => {
    for (let i = next++; i < slugs.length; i = next++) {
      const slug = slugs[i] as string;
      const files = testFiles(join(destinationsDir, slug));
      if (files.length === 0) continue;
      const segmentOut = join(tmp, `${slug}.segment.jsonl`);
      const oursOut = join(tmp, `${slug}.ours.jsonl`);
      await runWorker('segment', slug, files, segmentOut);
      await runWorker('ours', slug, files, oursOut);
      const cases = classify(readLines(segmentOut), readLines(oursOut), (f) =>
        declaredTests(readFileSync(f, 'utf8')),
      );
      results.set(slug, cases);
      replays.set(slug, replayCases(`${oursOut}.replay`, cases));
      const pass = cases.filter((c) => c.result === 'pass').length;
      const runnable = cases.filter((c) => c.result !== 'not runnable').length;
      console.log(`${slug}: ${pass}/${runnable} runnable cases pass (${cases.length} cases)`);
    }
  };
  await Promise.all(Array.from({ length: jobs }, work));
  rmSync(tmp, { recursive: true, force: true });

  const destinations = [...results]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([slug, cases]) => destinationFigure(slug, cases));
  const problems = verdict(committed, destinations, only ? slugs : installedSlugs, reviewed);
  const report: ConformanceReport = {
    package: '@segment/action-destinations',
    version: installed,
    tests: `segmentio/action-destinations@@segment/action-destinations@${installed}`,
    totals: totalsOf(destinations),
    destinations,
  };
  console.log(JSON.stringify(report.totals, null, 2));
  for (const p of problems) console.error(`FAIL ${p}`);
  if (problems.length > 0) console.error(`${problems.length} problems against ${resultsPath}`);
  if (!only && (problems.length === 0 || args.includes('--accept'))) {
    writeFileSync(REPORT_PATH, `${JSON.stringify(report, null, 1)}\n`);
    writeFileSync(DOC_PATH, withSection(readFileSync(DOC_PATH, 'utf8'), conformanceSection(report)));
    writeReplay(REPLAY_DIR, report, replays, commitOf(checkout, option('--commit')));
  }
  // `--only … --replay`: the CI tier's data of these destinations written again, the others kept
  // (the committed results unchanged: only a run that holds against them).
  if (only && args.includes('--replay') && problems.length === 0) {
    const kept = readReplay(join(REPLAY_DIR, REPLAY_FILE));
    const merged = new Map(Object.entries(kept.destinations).map(([s, c]) => [s, [...c]]));
    for (const [slug, cases] of replays) merged.set(slug, cases);
    writeReplay(REPLAY_DIR, kept, merged, commitOf(checkout, option('--commit')));
  }
  if (problems.length > 0 && !args.includes('--accept')) process.exitCode = 1;
}

await main();
