/**
 * The declared API of each emulator package (issue #77; docs/versioning.md): for every entry of
 * its package.json `exports`, the names that entry exports, each with its kind, following
 * `export … from` re-exports. Written to `emulators/<package>/api-report.json` by
 * `npm run api-report`; test/unit/scripts/api-report.test.ts fails when a package's exports or
 * an entry's names change without the report, so a change to what a client may import is seen
 * in review.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What a package declares, and what each entry exports (`kind name`, sorted). */
export interface ApiReport {
  readonly name: string;
  readonly exports: Readonly<Record<string, string | readonly string[]>>;
}

const kindOf = (node: ts.Node): string =>
  ts.isFunctionDeclaration(node)
    ? 'function'
    : ts.isClassDeclaration(node)
      ? 'class'
      : ts.isInterfaceDeclaration(node)
        ? 'interface'
        : ts.isTypeAliasDeclaration(node)
          ? 'type'
          : ts.isEnumDeclaration(node)
            ? 'enum'
            : 'const';

const exported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The names a module file exports, with their kinds; re-exports followed to their files. */
export function exportsOf(file: string, seen: Set<string> = new Set()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  for (const st of source.statements) {
    if (ts.isExportDeclaration(st)) {
      const from =
        st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? st.moduleSpecifier.text : undefined;
      const target = from?.startsWith('.') ? join(dirname(file), from) : undefined;
      const theirs = target ? exportsOf(target, new Set(seen)) : [];
      if (st.exportClause === undefined) names.push(...theirs);
      else if (ts.isNamedExports(st.exportClause))
        for (const el of st.exportClause.elements) {
          const original = (el.propertyName ?? el.name).text;
          const kind = theirs.find((n) => n.endsWith(` ${original}`))?.split(' ')[0] ?? 'const';
          names.push(
            `${st.isTypeOnly || el.isTypeOnly ? (kind === 'const' ? 'type' : kind) : kind} ${el.name.text}`,
          );
        }
      continue;
    }
    if (!exported(st)) continue;
    if (ts.isVariableStatement(st))
      for (const d of st.declarationList.declarations) names.push(`const ${d.name.getText(source)}`);
    else {
      const name = (st as ts.DeclarationStatement).name?.getText(source);
      if (name) names.push(`${kindOf(st)} ${name}`);
    }
  }
  return [...new Set(names)].sort();
}

/** The report of one package folder (`emulators/common`): each export, and a pattern as it is. */
export function apiReport(dir: string): ApiReport {
  const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as {
    name: string;
    exports?: Record<string, string>;
  };
  const entries = Object.entries(pkg.exports ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return {
    name: pkg.name,
    exports: Object.fromEntries(
      entries.map(([key, target]) => [
        key,
        key.includes('*') || !target.endsWith('.ts') ? target : exportsOf(join(ROOT, dir, target)),
      ]),
    ),
  };
}

/** The emulator packages: every folder of emulators/ with a package.json. */
export const EMULATOR_PACKAGES = readdirSync(join(ROOT, 'emulators'))
  .map((n) => `emulators/${n}`)
  .filter((d) => existsSync(join(ROOT, d, 'package.json')))
  .sort();

export const reportFile = (dir: string): string => join(ROOT, dir, 'api-report.json');

/** The IAM permissions an emulator checks, as its code names them (its tests left out). */
export function permissionsOf(dir: string): string[] {
  const found = new Set<string>();
  for (const name of readdirSync(join(ROOT, dir)).filter((n) => n.endsWith('.ts')))
    for (const m of readFileSync(join(ROOT, dir, name), 'utf8').matchAll(
      /'((?:pubsub|bigquery|bigtable|storage|datastore|secretmanager|datacatalog|resourcemanager)\.[a-zA-Z]+\.[a-zA-Z]+)'/g,
    ))
      if (!(m[1] as string).endsWith('.com')) found.add(m[1] as string);
  return [...found].sort();
}

const IAM_START = '<!-- generated:iam-surface -->';
const IAM_END = '<!-- /generated -->';

/** An emulator README's "IAM surface" block: the flags, the shared files, and the permissions. */
export function iamSurface(dir: string): string {
  const permissions = permissionsOf(dir).map((p) => `\`${p}\``);
  return [
    IAM_START,
    '### IAM surface',
    '',
    'The flags `--iam <file>` and `--identity <member>=<port>`, the access file, local tokens and',
    'member ports come from `@eventbus/emulator-common/iam-enforce.ts` (its README); the types a',
    'provisioner writes the access file with are `@eventbus/emulator-common/types`. The permissions',
    `this emulator checks (${permissions.length}, written by \`npm run api-report\` from its code):`,
    `${permissions.join(', ')}.`,
    '',
    `The package exports ${Object.keys(apiReport(dir).exports)
      .map((k) => `\`${k}\``)
      .join(' and ')}; \`api-report.json\` lists the names each gives.`,
    IAM_END,
  ].join('\n');
}

/** The README with its IAM surface block written (added at the end of its access section). */
export function withIamSurface(readme: string, dir: string): string {
  const block = iamSurface(dir);
  const start = readme.indexOf(IAM_START);
  if (start >= 0)
    return readme.slice(0, start) + block + readme.slice(readme.indexOf(IAM_END, start) + IAM_END.length);
  const access = readme.indexOf('## Access control');
  const next = readme.indexOf('\n## ', access + 1);
  if (access < 0 || next < 0) throw new Error(`${dir}/README.md has no "## Access control" section`);
  return `${readme.slice(0, next)}\n${block}\n${readme.slice(next)}`;
}

/** The emulators that check IAM: those with an access.ts (not the shared package). */
export const IAM_EMULATORS = (): string[] =>
  EMULATOR_PACKAGES.filter((d) => existsSync(join(ROOT, d, 'access.ts')));
export const reportText = (report: ApiReport): string => `${JSON.stringify(report, null, 2)}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url))
  for (const dir of EMULATOR_PACKAGES) {
    writeFileSync(reportFile(dir), reportText(apiReport(dir)));
    console.log(`wrote ${dir}/api-report.json`);
    if (!IAM_EMULATORS().includes(dir)) continue;
    const readme = join(ROOT, dir, 'README.md');
    writeFileSync(readme, withIamSurface(readFileSync(readme, 'utf8'), dir));
  }
