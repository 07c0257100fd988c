/**
 * Release notes from the log (docs/versioning.md): the commits of a release grouped by their
 * Conventional Commits type, as a CHANGELOG.md section. `npm run release-notes -- [--version
 * 0.2.0] [--from <rev>] [--to <rev>] [--package emulators/pubsub]`: from the last tag of the
 * release line (`v*`, or `<package name>@*` for an emulator package, whose notes hold only the
 * commits that touch its folder) or else `.commit-base`, to HEAD.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { commitBase, commitsAfter, parseSubject, ROOT, TYPES } from './commits.ts';

/** A CHANGELOG section: `## <title>`, then `### <section>` per type in TYPES' order. */
export function releaseNotes(title: string, subjects: readonly string[]): string {
  const groups = new Map<string, string[]>();
  const other: string[] = [];
  for (const subject of subjects) {
    const s = parseSubject(subject);
    if (s === undefined || TYPES[s.type] === undefined) {
      other.push(subject);
      continue;
    }
    const line = `- **${s.scope}**: ${s.what}${s.breaking ? ' (breaking)' : ''}`;
    groups.set(s.type, [...(groups.get(s.type) ?? []), line]);
  }
  const parts = [`## ${title}`, ''];
  for (const [type, section] of Object.entries(TYPES)) {
    const lines = groups.get(type);
    if (lines) parts.push(`### ${section}`, '', ...lines, '');
  }
  if (other.length > 0) parts.push('### Other', '', ...other.map((o) => `- ${o}`), '');
  return parts.join('\n');
}

/** The newest tag matching `pattern` reachable from `to`, or undefined. */
function lastTag(pattern: string, to: string): string | undefined {
  try {
    return execFileSync('git', ['describe', '--tags', '--abbrev=0', `--match=${pattern}`, to], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

function main(): void {
  const { values } = parseArgs({
    options: {
      version: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string', default: 'HEAD' },
      package: { type: 'string' },
    },
  });
  const to = values.to ?? 'HEAD';
  const pkgName =
    values.package === undefined
      ? undefined
      : (JSON.parse(readFileSync(join(ROOT, values.package, 'package.json'), 'utf8')) as { name: string })
          .name;
  const from = values.from ?? lastTag(pkgName ? `${pkgName}@*` : 'v*', to) ?? commitBase();
  const commits = commitsAfter(from, to, values.package ? [values.package] : []);
  const title = `${pkgName ? `${pkgName} ` : ''}${values.version ?? 'Unreleased'}`;
  process.stdout.write(
    releaseNotes(
      title,
      commits.map((c) => c.subject),
    ),
  );
}

if (process.argv[1]?.endsWith('release-notes.ts')) main();
