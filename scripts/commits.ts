/**
 * The commit log as releases read it (docs/versioning.md): each subject is
 * `type(scope): what` (Conventional Commits), at most 72 characters, its type from TYPES.
 * `npm run lint` checks every commit after the recorded base (`.commit-base`: older history has
 * subjects that cannot be rewritten), merges left out (the lead's merge commits name a branch);
 * `npm run release-notes` groups the same subjects into a CHANGELOG section.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The types a subject may start with, each with its CHANGELOG section. */
export const TYPES: Readonly<Record<string, string>> = {
  feat: 'Features',
  fix: 'Fixes',
  perf: 'Performance',
  bench: 'Benchmarks',
  refactor: 'Refactoring',
  docs: 'Documentation',
  test: 'Tests',
  build: 'Build',
  ci: 'CI',
  chore: 'Chores',
  revert: 'Reverts',
  style: 'Style',
};

export const MAX_SUBJECT = 72;

/** A subject's parts: `type(scope)!: what`. */
const SUBJECT = /^([a-z]+)\(([a-z0-9][a-z0-9./-]*)\)(!)?: (\S.*)$/;

export interface Subject {
  readonly type: string;
  readonly scope: string;
  readonly breaking: boolean;
  readonly what: string;
}

export function parseSubject(subject: string): Subject | undefined {
  const m = SUBJECT.exec(subject);
  if (!m) return undefined;
  return { type: m[1] as string, scope: m[2] as string, breaking: m[3] === '!', what: m[4] as string };
}

/** Why a subject does not pass, or nothing. */
export function subjectProblems(subject: string): string[] {
  const problems: string[] = [];
  if (subject.length > MAX_SUBJECT) problems.push(`${subject.length} characters (at most ${MAX_SUBJECT})`);
  const s = parseSubject(subject);
  if (!s) problems.push('not `type(scope): what`');
  else if (TYPES[s.type] === undefined)
    problems.push(`type "${s.type}" is not one of ${Object.keys(TYPES).join(', ')}`);
  return problems;
}

/** The recorded base: the first line of `.commit-base` that is a commit id. */
export function commitBase(): string {
  const line = readFileSync(join(ROOT, '.commit-base'), 'utf8')
    .split('\n')
    .find((l) => /^[0-9a-f]{40}$/.test(l.trim()));
  if (line === undefined) throw new Error('.commit-base names no commit');
  return line.trim();
}

const git = (args: readonly string[]): string =>
  execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** The commits after `from` up to `to`, merges left out: id and subject, oldest first. */
export function commitsAfter(
  from: string,
  to = 'HEAD',
  paths: readonly string[] = [],
): { id: string; subject: string }[] {
  const out = git(['log', '--no-merges', '--reverse', '--format=%H %s', `${from}..${to}`, '--', ...paths]);
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => ({ id: l.slice(0, 40), subject: l.slice(41) }));
}

/** Whether the base is in this clone's history (a shallow clone may not hold it). */
export function hasCommit(id: string): boolean {
  try {
    git(['cat-file', '-e', `${id}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}
