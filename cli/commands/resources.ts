/**
 * Runtime resources (docs/studio.md), one grammar for every kind, through the studio's admin API:
 *
 *   eventbus apply -f <file|dir|->  [--dry-run]     create or update from YAML (several documents per file)
 *   eventbus diff -f <file|dir|->                    what apply would change, as a diff (exit 1 if any)
 *   eventbus list <kind>                             the kind's resources and their current versions
 *   eventbus get <kind> [name]                       the current version(s), as YAML apply reads
 *   eventbus history <kind> <name>                   every committed version
 *   eventbus delete <kind> <name>                    mark deleted (history stays)
 *
 * Kinds: EventDefinition, Translator, Sync, Rule, Query. Locally the studio of the running
 * environment is found through --data-dir; EVENTBUS_STUDIO_URL and EVENTBUS_ADMIN_TOKEN point
 * elsewhere.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import type { ResourceVersion } from '../../core/registry/registry.ts';
import { exportYaml } from '../../core/registry/resource-diff.ts';
import { DATA_DIR_OPTION, type StudioEndpoint, studioEndpoint } from '../environment.ts';
import { CliError, writerOf } from '../output.ts';

interface Change {
  kind: string;
  name: string;
  change: string;
  version: string;
  previous?: string;
  breaking?: string[];
  /** Dry runs: the diff from the current version to the document sent. */
  diff?: string;
}

/** Aliases one document may expand (the yaml library's default; a resource needs few, if any). */
const MAX_ALIAS_COUNT = 100;

/** Reads the YAML documents of a file, every .yaml/.yml file of a directory, or stdin (`-`). */
export function readDocuments(path: string, stdin: () => string = () => readFileSync(0, 'utf8')): unknown[] {
  const sources: { name: string; text: string }[] = [];
  if (path === '-') sources.push({ name: '<stdin>', text: stdin() });
  else if (statSync(path, { throwIfNoEntry: false })?.isDirectory())
    for (const f of readdirSync(path)
      .filter((n) => /\.ya?ml$/.test(n))
      .sort())
      sources.push({ name: join(path, f), text: readFileSync(join(path, f), 'utf8') });
  else {
    try {
      sources.push({ name: path, text: readFileSync(path, 'utf8') });
    } catch {
      throw new CliError(`cannot read ${path}`);
    }
  }
  const docs: unknown[] = [];
  for (const { name, text } of sources) {
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new CliError(`${name}: ${doc.errors[0]?.message}`);
      let value: unknown;
      try {
        // toJS throws for aliases expanding past the yaml library's limit (a "billion laughs").
        value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
      } catch (err) {
        throw new CliError(`${name}: ${(err as Error).message.split('\n')[0]}`);
      }
      if (value !== null && value !== undefined) docs.push(value);
    }
  }
  if (docs.length === 0) throw new CliError(`${path}: no resource documents`);
  return docs;
}

async function call(s: StudioEndpoint, method: string, path: string, body?: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(`${s.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${s.token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  } catch (err) {
    throw new CliError(`the studio at ${s.url} did not answer: ${(err as Error).message}`);
  }
  const parsed = (await res.json().catch(() => ({}))) as {
    error?: { message?: string; details?: { fieldViolations?: { field: string; description: string }[] }[] };
  };
  if (!res.ok) {
    const violations = (parsed.error?.details ?? []).flatMap((d) => d.fieldViolations ?? []);
    throw new CliError(
      [
        parsed.error?.message ?? `HTTP ${res.status}`,
        ...violations.map((v) => `  ${v.field}: ${v.description}`),
      ].join('\n'),
    );
  }
  return parsed;
}

/** A call to the studio's admin API for commands elsewhere (`rule test`). */
export async function studioCall(
  o: { dataDir?: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  return call(await studioEndpoint(process.env, o.dataDir), method, path, body);
}

const resourcePath = (kind: string, name?: string, tail = ''): string =>
  `/v1/admin/resources/${encodeURIComponent(kind)}${name ? `/${encodeURIComponent(name)}` : ''}${tail}`;

function describeChange(c: Change, dryRun: boolean): string {
  const verb = dryRun ? { created: 'would create', updated: 'would update', deleted: 'would delete' } : {};
  const what = (verb as Record<string, string>)[c.change] ?? c.change;
  const from = c.previous && c.change !== 'unchanged' ? ` (was ${c.previous})` : '';
  const why = c.breaking?.length ? `, a new major version: ${c.breaking.join('; ')}` : '';
  return `${c.kind}/${c.name} ${what} ${c.version}${from}${why}`;
}

/**
 * `-f`, given as often as needed: every file's documents go to the studio in one apply, which
 * takes them all or none (a bad document anywhere applies nothing).
 */
const FILE_OPTION: readonly [string, string] = [
  '-f, --file <path>',
  'a YAML file, a directory of them, or - for stdin; repeat for more (all applied together, or none)',
];
const collectFiles = (value: string, previous: string[] = []): string[] => [...previous, value];

export function register(program: Command): void {
  const studio = (o: { dataDir?: string }) => studioEndpoint(process.env, o.dataDir);

  program
    .command('apply')
    .description(
      'Create or update runtime resources (event definitions, translators, syncs, rules, queries) from YAML',
    )
    .requiredOption(...FILE_OPTION, collectFiles)
    .option('--dry-run', 'show what would change, change nothing')
    .option(...DATA_DIR_OPTION)
    .action(async (o: { file: string[]; dryRun?: boolean; dataDir?: string }, cmd: Command) => {
      const documents = o.file.flatMap((f) => readDocuments(f));
      const answer = (await call(await studio(o), 'POST', '/v1/admin/apply', {
        documents,
        dryRun: o.dryRun === true,
      })) as { changes: Change[]; views?: { name: string; result: string }[] };
      const out = writerOf(cmd);
      for (const c of answer.changes) {
        out(`${describeChange(c, o.dryRun === true)}\n`);
        if (c.diff) out(c.diff);
      }
      for (const v of answer.views ?? []) out(`view ${v.name}: ${v.result}\n`);
      for (const line of await translatorSecretLines(documents, o.dataDir)) out(`${line}\n`);
    });

  program
    .command('diff')
    .description(
      'Show what `apply -f` would change, as a unified diff per resource; exit 1 when anything differs',
    )
    .requiredOption(...FILE_OPTION, collectFiles)
    .option(...DATA_DIR_OPTION)
    .action(async (o: { file: string[]; dataDir?: string }, cmd: Command) => {
      // The files first, as apply does: a bad file is named even when no studio is running.
      const documents = o.file.flatMap((f) => readDocuments(f));
      const answer = (await call(await studio(o), 'POST', '/v1/admin/apply', {
        documents,
        dryRun: true,
      })) as { changes: Change[] };
      const out = writerOf(cmd);
      const changed = answer.changes.filter((c) => c.change !== 'unchanged');
      for (const c of changed) out(`${describeChange(c, true)}\n${c.diff ?? ''}`);
      if (changed.length > 0)
        throw new CliError(
          `${changed.length} of ${answer.changes.length} resource(s) differ from the registry`,
        );
      out(`no differences (${answer.changes.length} resource(s))\n`);
    });

  program
    .command('list')
    .description('List the runtime resources of a kind and their current versions')
    .argument('<kind>', 'EventDefinition | Translator | Sync | Rule | Query')
    .option(...DATA_DIR_OPTION)
    .action(async (kind: string, o: { dataDir?: string }, cmd: Command) => {
      const answer = (await call(await studio(o), 'GET', resourcePath(kind))) as {
        resources: { name: string; version: string; updated: string; author: string; deleted?: boolean }[];
      };
      const out = writerOf(cmd);
      if (answer.resources.length === 0) out('(none)\n');
      for (const r of answer.resources)
        out(`${r.name}\t${r.version}${r.deleted ? ' (deleted)' : ''}\t${r.updated}\t${r.author}\n`);
    });

  program
    .command('get')
    .description(
      'Print the current version of a runtime resource (or of every one of a kind) as the YAML `apply -f` reads',
    )
    .argument('<kind>')
    .argument('[name]', 'one resource; without it, every resource of the kind that is not deleted')
    .option(...DATA_DIR_OPTION)
    .action(async (kind: string, name: string | undefined, o: { dataDir?: string }, cmd: Command) => {
      const s = await studio(o);
      let names = name ? [name] : [];
      if (!name) {
        const index = (await call(s, 'GET', resourcePath(kind))) as {
          resources: { name: string; deleted?: boolean }[];
        };
        names = index.resources.filter((r) => !r.deleted).map((r) => r.name);
      }
      const versions: ResourceVersion[] = [];
      for (const n of names) versions.push((await call(s, 'GET', resourcePath(kind, n))) as ResourceVersion);
      writerOf(cmd)(versions.length > 0 ? exportYaml(versions) : '# (none)\n');
    });

  program
    .command('history')
    .description('List every committed version of a runtime resource')
    .argument('<kind>')
    .argument('<name>')
    .option(...DATA_DIR_OPTION)
    .action(async (kind: string, name: string, o: { dataDir?: string }, cmd: Command) => {
      const answer = (await call(await studio(o), 'GET', resourcePath(kind, name, '/history'))) as {
        versions: { version: string; created: string; author: string }[];
      };
      const out = writerOf(cmd);
      if (answer.versions.length === 0) out('(none)\n');
      for (const v of answer.versions) out(`${v.version}\t${v.created}\t${v.author}\n`);
    });

  program
    .command('delete')
    .description('Delete a runtime resource (its history stays)')
    .argument('<kind>')
    .argument('<name>')
    .option(...DATA_DIR_OPTION)
    .action(async (kind: string, name: string, o: { dataDir?: string }, cmd: Command) => {
      const answer = (await call(await studio(o), 'DELETE', resourcePath(kind, name))) as {
        changes: Change[];
      };
      for (const c of answer.changes) writerOf(cmd)(`${describeChange(c, false)}\n`);
    });
}

/**
 * Whether the gateway can read the applied translators' signing secrets (cli/translator-secrets.ts):
 * as the gateway on a running local environment, by the program's naming rule otherwise.
 */
async function translatorSecretLines(
  documents: readonly unknown[],
  dataDir: string | undefined,
): Promise<string[]> {
  const { translatorSecrets, unreadableSecrets } = await import('../translator-secrets.ts');
  if (translatorSecrets(documents).length === 0) return [];
  if (process.env['EVENTBUS_STUDIO_URL'])
    return unreadableSecrets(documents, { project: process.env['GOOGLE_CLOUD_PROJECT'] || '<project>' });
  const [{ readEnvironmentRecord }, { localToken }, { REPO_ROOT }] = await Promise.all([
    import('../../local/environment-record.ts'),
    import('../../local/access-file.ts'),
    import('../../local/settings-file.ts'),
  ]);
  const dir = resolve(dataDir ?? join(REPO_ROOT, '.data'));
  const found = readEnvironmentRecord(dir);
  const record = found.state === 'running' ? found.record : undefined;
  if (!record?.secretManagerUrl) return [];
  let gatewayToken: string;
  try {
    gatewayToken = localToken(dir, 'gateway', record.project);
  } catch {
    // IAM off (`npm start -- --iam off`): every caller is the owner, nothing to check.
    return [];
  }
  return unreadableSecrets(documents, {
    project: record.project,
    local: { url: record.secretManagerUrl, project: record.project, gatewayToken },
  });
}
