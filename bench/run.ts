/**
 * `npm run bench`: runs every suite (or those named on the command line), each in its own
 * process, and prints figures with their same-run baselines and ratios.
 *
 * A suite fails (and the exit code is 1) when it throws, when it measures nothing (no figure, or
 * a value or baseline that is zero, negative or not a number: the gateway's `0.00 req/s` went
 * unnoticed for months), when a full run misses one of its hard targets (gates), or when it has
 * not finished within its bound: its process group is then
 * killed (an environment it started is stopped by the supervisor's guardian), and the next suite
 * runs. Its own process keeps one suite's leftovers (environment variables, clients, listeners)
 * from reaching the next. After the suites, a cost line per million events: the cost model
 * (core/deploy/cost.ts) fed with the CPU per request the run measured (bench/cost-line.ts).
 *
 *   npm run bench                       every suite, measured in full (several minutes)
 *   npm run bench gateway store         some suites
 *   npm run bench -- --quick            every suite in a few seconds each: that it works, not its speed
 *   --module <file>                     also run the suite a file exports (`export const suite`)
 *   --bound <seconds>                   each suite's time limit (default 45 quick, 1200 in full)
 *   --doc <file>                        where a full run writes its figures (default docs/bench.md)
 *
 * A full run of named suites (not --quick, not --module) rewrites their sections of docs/bench.md
 * (bench/report.ts), so the figures the docs show are the last ones measured.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { costLine } from './cost-line.ts';
import {
  type BenchFigure,
  type BenchSuite,
  figureProblems,
  formatFigure,
  gateProblems,
  type SuiteOutcome,
} from './lib.ts';
import { machineTicks, stealPercent } from './proc-cpu.ts';
import { benchDoc } from './report.ts';

export const SUITES: Readonly<Record<string, string>> = {
  pubsub: './pubsub.ts',
  bigquery: './bigquery.ts',
  bundles: './bundles.ts',
  gateway: './gateway.ts',
  store: './store.ts',
  delivery: './delivery.ts',
  'forward-catalog': './forward-catalog.ts',
  auth: './auth.ts',
  storage: './storage.ts',
  rules: './rules.ts',
  translate: './translate.ts',
  studio: './studio.ts',
  syncs: './syncs.ts',
  enrich: './enrich.ts',
  tag: './tag.ts',
  consent: './consent.ts',
  'send-once': './send-once.ts',
  propagation: './propagation.ts',
  tracing: './tracing.ts',
};

/** What a suite's process tells the harness (over the IPC channel). */
type ChildMessage =
  | { readonly kind: 'title'; readonly name: string }
  | { readonly kind: 'figures'; readonly figures: BenchFigure[] }
  | { readonly kind: 'error'; readonly message: string };

const moduleUrl = (spec: string): string =>
  SUITES[spec] ? new URL(SUITES[spec], import.meta.url).href : pathToFileURL(resolve(spec)).href;

/** In the suite's own process: runs it and reports over IPC. */
async function child(spec: string, quick: boolean): Promise<void> {
  const send = (m: ChildMessage) =>
    new Promise<void>((done) => {
      if (process.send) process.send(m, () => done());
      else done();
    });
  try {
    const { suite } = (await import(moduleUrl(spec))) as { suite: BenchSuite };
    await send({ kind: 'title', name: suite.name });
    await send({ kind: 'figures', figures: await suite.run({ quick }) });
  } catch (err) {
    await send({ kind: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
  // A suite that left a handle open (a timer, a socket) has still finished.
  process.exit(0);
}

/** Runs one suite in its own process group, killed when it outlives `boundSeconds`. */
function runSuite(spec: string, quick: boolean, boundSeconds: number): Promise<SuiteOutcome> {
  const started = performance.now();
  const proc = spawn(
    process.execPath,
    [new URL(import.meta.url).pathname, '--child', spec, ...(quick ? ['--quick'] : [])],
    // Its own group: a kill reaches whatever it started directly (emulators, servers).
    // Structured clone over IPC: a NaN figure arrives as NaN (JSON would make it null).
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true, serialization: 'advanced' },
  );
  running.add(proc.pid as number);
  let title = spec;
  let figures: BenchFigure[] | undefined;
  const problems: string[] = [];
  proc.on('message', (m: ChildMessage) => {
    if (m.kind === 'title') {
      title = m.name;
      console.log(`\n# ${m.name}`);
    } else if (m.kind === 'figures') figures = m.figures;
    else problems.push(`threw: ${m.message}`);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(proc.pid);
  }, boundSeconds * 1000);
  return new Promise((done) => {
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      killGroup(proc.pid); // anything it left behind in its group
      running.delete(proc.pid as number);
      if (timedOut) problems.push(`did not finish within ${boundSeconds} s (killed)`);
      else if (figures) problems.push(...figureProblems(figures), ...(quick ? [] : gateProblems(figures)));
      else if (problems.length === 0) problems.push(`exited (${signal ?? code}) without figures`);
      done({
        suite: spec,
        title,
        figures: figures ?? [],
        problems,
        seconds: (performance.now() - started) / 1000,
      });
    });
  });
}

/** Suites' process groups still running (stopped on Ctrl-C). */
const running = new Set<number>();

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** What the run is measured on: the cores it may use (as `nproc` counts them), the CPU, Node, the load before it. */
export function machineLine(): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  return `machine: ${availableParallelism()} cores (nproc), ${model}, Node ${process.version}, load average ${load}`;
}

/** Runs the suites one after the other, printing each as it finishes; their outcomes. */
export async function runSuites(
  specs: readonly string[],
  opts: { readonly quick: boolean; readonly boundSeconds: number },
): Promise<SuiteOutcome[]> {
  const out: SuiteOutcome[] = [];
  for (const spec of specs) {
    const outcome = await runSuite(spec, opts.quick, opts.boundSeconds);
    if (outcome.title === spec) console.log(`\n# ${spec}`);
    for (const f of outcome.figures) console.log(formatFigure(f));
    for (const p of outcome.problems) console.log(`  failed: ${p}`);
    console.log(`  (${outcome.seconds.toFixed(1)} s)`);
    out.push(outcome);
  }
  return out;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      quick: { type: 'boolean', default: false },
      module: { type: 'string', multiple: true, default: [] },
      bound: { type: 'string' },
      child: { type: 'string' },
      doc: { type: 'string' },
    },
  });
  // Offline: Google's clients must not probe for a GCE metadata server (docs/google-wire.md §2).
  process.env['METADATA_SERVER_DETECTION'] ??= 'none';
  if (values.child !== undefined) await child(values.child, values.quick);
  else {
    const unknown = positionals.filter((n) => !SUITES[n]);
    if (unknown.length > 0) {
      console.error(
        `unknown suite(s): ${unknown.join(', ')}; the suites are ${Object.keys(SUITES).join(', ')}`,
      );
      process.exit(2);
    }
    const specs = [
      ...(positionals.length === 0 && values.module.length === 0 ? Object.keys(SUITES) : positionals),
      ...values.module,
    ];
    const boundSeconds = Number(values.bound ?? (values.quick ? 45 : 1200));
    const stop = () => {
      for (const pid of running) killGroup(pid);
      process.exit(130);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const started = performance.now();
    // Same-run ratios are the figures to read; the machine line says what they were measured on.
    const machine = machineLine();
    console.log(machine);
    const ticks = machineTicks();
    const outcomes = await runSuites(specs, { quick: values.quick, boundSeconds });
    const after = machineTicks();
    if (ticks && after)
      console.log(
        `\nCPU steal over the run: ${stealPercent(ticks, after).toFixed(1)} % of the machine's CPU time (other tenants of a shared VM; figures from a run with more than a few % are the machine's as much as the code's)`,
      );
    const steal = ticks && after ? ` CPU steal ${stealPercent(ticks, after).toFixed(1)} %.` : '';
    if (!values.quick) {
      const doc = resolve(values.doc ?? new URL('../docs/bench.md', import.meta.url).pathname);
      const measured = outcomes.filter((o) => SUITES[o.suite] !== undefined);
      const stamp = `Measured ${new Date().toISOString().slice(0, 10)}; ${machine}.${steal}`;
      const before = existsSync(doc) ? readFileSync(doc, 'utf8') : '';
      if (measured.length > 0) {
        writeFileSync(doc, benchDoc(before, measured, stamp, Object.keys(SUITES)));
        console.log(`\nwrote ${measured.length} suite(s) into ${doc}`);
      }
    }
    const failed = outcomes.filter((o) => o.problems.length > 0).map((o) => o.suite);
    const cost = costLine(outcomes.flatMap((o) => o.figures));
    if (cost) console.log(`\n${cost}`);
    console.log(
      `\n${outcomes.length} suite(s) in ${((performance.now() - started) / 1000).toFixed(1)} s${values.quick ? ' (quick: checks that each works, not its speed)' : ''}; ${failed.length === 0 ? 'all worked' : `failed: ${failed.join(', ')}`}`,
    );
    process.exitCode = failed.length === 0 ? 0 : 1;
  }
}
