/**
 * `eventbus destinations list [--catalog]`: the destinations an environment's settings configure,
 * or, with `--catalog`, every Segment Action Destination a `segment_action` destination can name
 * (docs/linkage.md#catalogue): one a line with its slug, name, category, auth kind and number of
 * actions, from the manifest generated at build time (core/platforms/segment-action/catalog.json),
 * so listing loads none of the destinations' modules.
 */
import type { Command } from 'commander';
import { isOAuth } from '../../core/platforms/segment-action/auth-kind.ts';
import type { CatalogEntry } from '../../core/platforms/segment-action/catalog.ts';
import { undelivered } from '../../core/platforms/segment-action/deliverable.ts';
import { type Row, renderTable, writerOf } from '../output.ts';

interface ListFlags {
  readonly catalog?: boolean;
  readonly json?: boolean;
  readonly search?: string;
  readonly settings: string;
}

/** One catalogue destination as a row: what the table shows and `--json` gives. */
export function catalogRow(d: CatalogEntry, supported: boolean): Row {
  const none = undelivered(d.slug);
  return {
    slug: d.slug,
    name: d.name,
    category: d.category ?? '',
    auth: d.auth,
    supported,
    actions: d.actions.length,
    action_keys: d.actions.map((a) => a.key),
    // Verified is not delivered: the project's own run of the catalogue (deliverable.ts).
    ...(none === undefined ? {} : { undelivered: none.says }),
  };
}

const CATALOG_COLUMNS = [
  { key: 'slug' },
  { key: 'name' },
  { key: 'category' },
  { key: 'auth', header: 'auth' },
  { key: 'actions', header: 'actions' },
] as const;

/** The summary `--catalog` writes to stderr, so stdout stays one destination a line. */
export function catalogSummary(
  rows: readonly Row[],
  version: string,
  unloadable: readonly { slug: string; reason: string }[],
): string {
  const oauth = rows.filter((r) => isOAuth(r['auth']));
  const unsupported = oauth.filter((r) => r['supported'] !== true).map((r) => r['slug']);
  const parts = [
    `${rows.length} destination(s) from @segment/action-destinations ${version}`,
    `${rows.length - oauth.length} take their credentials from settings and secrets`,
    `${oauth.length} need OAuth: an oauth2 connection (eventbus connect <destination>)${unsupported.length > 0 ? `, not supported for ${unsupported.join(', ')}` : ''}`,
  ];
  const refused = rows.filter((r) => !isOAuth(r['auth']) && r['supported'] !== true).map((r) => r['slug']);
  if (refused.length > 0)
    parts.push(
      `not offered: ${refused.join(', ')} (their actions connect by a client of their own, around the egress gate)`,
    );
  const skipped =
    unloadable.length > 0
      ? `\n${unloadable.length} folder(s) do not load: ${unloadable.map((u) => `${u.slug} (${u.reason})`).join('; ')}`
      : '';
  return `${parts.join('; ')}.${skipped}\n`;
}

async function listCatalog(o: ListFlags, command: Command): Promise<void> {
  const { catalogManifest, catalogSearch, catalogSupported } = await import(
    '../../core/platforms/segment-action/catalog.ts'
  );
  const m = catalogManifest();
  const found = o.search === undefined ? m.destinations : catalogSearch(o.search, m.destinations);
  const rows = found.map((d) => catalogRow(d, catalogSupported(d)));
  const write = writerOf(command);
  if (o.json) {
    write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  write(
    rows.length === 0 ? `no destination matches "${o.search ?? ''}"\n` : renderTable(rows, CATALOG_COLUMNS),
  );
  const warn = command.configureOutput().writeErr ?? ((t: string) => process.stderr.write(t));
  warn(catalogSummary(rows, m.version, o.search === undefined ? m.unloadable : []));
}

async function listConfigured(o: ListFlags, command: Command): Promise<void> {
  const { readEnvironment } = await import('../environment.ts');
  const { path, settings } = await readEnvironment(o.settings);
  const q = (o.search ?? '').toLowerCase();
  const rows = (settings.destinations ?? [])
    .map((d) => ({
      id: d.id,
      type: d.type,
      destination: (d as { destination?: unknown }).destination ?? '',
    }))
    .filter((r) => `${r.id} ${r.type} ${String(r.destination)}`.toLowerCase().includes(q));
  const write = writerOf(command);
  if (o.json) write(`${JSON.stringify(rows, null, 2)}\n`);
  else write(`${path}\n${renderTable(rows)}`);
}

export function register(program: Command): void {
  const destinations = program
    .command('destinations')
    .description('Destinations: configured, or the catalogue');
  destinations
    .command('list')
    .description(
      "List the settings' destinations, or with --catalog every Segment Action Destination a segment_action destination can name",
    )
    .option(
      '--catalog',
      'the catalogue of Segment Action Destinations (slug, name, category, auth kind, actions)',
    )
    .option(
      '--search <text>',
      'only those whose slug, name, category, auth kind or an action title contains the text',
    )
    .option('--json', 'print JSON instead of a table')
    .option('--settings <file>', 'settings file or environment name (without --catalog)', 'local')
    .addHelpText(
      'after',
      '\nExamples:\n  eventbus destinations list --catalog\n  eventbus destinations list --catalog --search klaviyo --json\n  eventbus destinations list --settings environments/example.yaml',
    )
    .action((o: ListFlags, command: Command) =>
      o.catalog ? listCatalog(o, command) : listConfigured(o, command),
    );
}
