#!/usr/bin/env node
/**
 * `npm run test-times -- <dir> [--top N]`: sums what `EVENTBUS_TEST_TIMES=<dir> npm test` recorded
 * (the test-times hook in .mocharc.json's `require` list: one line per test file and mocha process) and prints the files by
 * CPU, their own process's and their children's (environments, emulators, browsers), with the
 * suite's totals. Why: `npm test`'s wall time on 2 cores is bounded below by the CPU its files
 * cost; this says where that CPU goes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface Line {
  readonly file: string;
  readonly wallSeconds: number;
  readonly ownCpuSeconds: number;
  readonly childCpuSeconds: number;
}

export function readTimes(dir: string): Line[] {
  const out: Line[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.jsonl')))
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n'))
      if (line.trim() !== '') out.push(JSON.parse(line) as Line);
  return out;
}

export function report(lines: readonly Line[], top: number): string {
  const cpu = (l: Line) => l.ownCpuSeconds + l.childCpuSeconds;
  const sorted = [...lines].sort((a, b) => cpu(b) - cpu(a));
  const sum = (f: (l: Line) => number) => lines.reduce((n, l) => n + f(l), 0);
  const rows = sorted
    .slice(0, top)
    .map(
      (l) =>
        `${cpu(l).toFixed(1).padStart(7)} ${l.ownCpuSeconds.toFixed(1).padStart(7)} ${l.childCpuSeconds.toFixed(1).padStart(7)} ${l.wallSeconds.toFixed(1).padStart(7)}  ${l.file}`,
    );
  return [
    `${lines.length} files: CPU ${sum(cpu).toFixed(0)} s (own ${sum((l) => l.ownCpuSeconds).toFixed(0)} s, children ${sum((l) => l.childCpuSeconds).toFixed(0)} s), wall summed ${sum((l) => l.wallSeconds).toFixed(0)} s`,
    '    cpu     own  childr    wall  file',
    ...rows,
  ].join('\n');
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' } } });
  const dir = positionals[0];
  if (!dir) {
    process.stderr.write('usage: npm run test-times -- <dir> [--top N]\n');
    process.exit(2);
  }
  process.stdout.write(`${report(readTimes(dir), Number(values.top ?? 40))}\n`);
}
