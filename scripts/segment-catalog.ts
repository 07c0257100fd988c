/**
 * Writes the manifest of Segment's Action Destinations (issue #65; docs/linkage.md#catalogue):
 * core/platforms/segment-action/catalog.json, one entry per destination folder of the installed
 * `@segment/action-destinations` that loads — its name, description, a derived category, how it
 * authenticates and its settings fields, its actions with their fields, subscriptions and
 * presets — and `unloadable` with the error of each folder that does not load. Run by
 * `npm run docs` (scripts/docs-generate.ts); test/cli/segment-catalog.test.ts fails when
 * the committed file is stale. Readers use core/platforms/segment-action/catalog.ts, so no caller
 * loads the 170 modules.
 *
 * Each folder is loaded on its own by deep import, inside a try: the package's index loads every
 * destination and fails on one optional dependency that is missing. Long descriptions are cut
 * to keep the file small; the order (slugs, then the definition's own order of actions and
 * fields) is the same on every run.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  CatalogAction,
  CatalogAuth,
  CatalogEntry,
  CatalogField,
  CatalogManifest,
  CatalogPreset,
  CatalogSetting,
  CatalogSettingRule,
} from '../core/platforms/segment-action/catalog.ts';
import { type PresetField, presetOf } from '../core/platforms/segment-action/presets.ts';
import { categoryOf } from './segment-catalog-category.ts';
import { actionTransport } from './segment-transport.ts';

const ROOT = resolve(import.meta.dirname, '..');
export const CATALOG_FILE = join(ROOT, 'core/platforms/segment-action/catalog.json');
const require = createRequire(import.meta.url);

/** The package the manifest describes. */
const PACKAGE = '@segment/action-destinations';

/** Longest description kept (in characters); the rest is cut at a word with an ellipsis. */
const MAX_DESCRIPTION = 200;

/** The installed package's version, which the manifest is stamped with. */
export function installedVersion(): string {
  const pkg = JSON.parse(readFileSync(require.resolve(`${PACKAGE}/package.json`), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** The destination folders under the package's dist/destinations, sorted. */
function folders(): string[] {
  const dir = join(require.resolve(`${PACKAGE}/package.json`), '..', 'dist', 'destinations');
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

function short(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const t = text.replace(/\s+/g, ' ').trim();
  if (t === '') return undefined;
  if (t.length <= MAX_DESCRIPTION) return t;
  const cut = t.slice(0, MAX_DESCRIPTION - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > 100 ? cut.slice(0, space) : cut).replace(/[\s,.;:]+$/, '')}…`;
}

/** A definition's fields as the loaded module holds them (actions-core's InputField, loosely). */
type RawField = Record<string, unknown>;

function choicesOf(raw: unknown): CatalogField['choices'] {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  return raw.map((c) =>
    typeof c === 'object' && c !== null
      ? {
          value: (c as { value: string | number }).value,
          label: String((c as { label?: unknown }).label ?? ''),
        }
      : { value: c as string | number, label: String(c) },
  );
}

/** An action's sync mode (actions-core's `syncMode`): the modes it offers and the one Segment's app preselects. */
function syncModeOf(raw: unknown): CatalogAction['syncMode'] {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as { default?: unknown; choices?: unknown };
  const choices = (choicesOf(r.choices) ?? []).map((c) => String(c.value));
  if (choices.length === 0) return undefined;
  return { ...(typeof r.default === 'string' ? { default: r.default } : {}), choices };
}

/** A settings field that holds a credential: a password field, or one named a key, token or secret. */
const SECRET_NAME = /api.?key|token|secret|password|(^|[^a-z])key$/i;

/** Settings (authentication) fields: the form's inputs, the credentials among them marked secret. */
function settingOf(key: string, f: RawField): CatalogSetting {
  const description = short(f['description']);
  const choices = choicesOf(f['choices']);
  const def = f['default'];
  const label = String(f['label'] ?? key);
  const type = String(f['type'] ?? 'string');
  return {
    key,
    label,
    type,
    required: f['required'] === true,
    ...(type === 'password' || SECRET_NAME.test(key) || SECRET_NAME.test(label) ? { secret: true } : {}),
    ...(description ? { description } : {}),
    ...(typeof def === 'number' || typeof def === 'boolean' || (typeof def === 'string' && def !== '')
      ? { default: def }
      : {}),
    ...(choices ? { choices } : {}),
  };
}

function fieldOf(key: string, f: RawField): CatalogField {
  const description = short(f['description']);
  const choices = choicesOf(f['choices']);
  const def = f['default'];
  const props = f['properties'];
  return {
    key,
    label: String(f['label'] ?? key),
    type: String(f['type'] ?? 'string'),
    required: f['required'] === true,
    ...(typeof f['required'] === 'object' && f['required'] !== null ? { conditional: true } : {}),
    ...(f['multiple'] === true ? { multiple: true } : {}),
    ...(description ? { description } : {}),
    ...(typeof f['format'] === 'string' ? { format: f['format'] } : {}),
    ...(def !== undefined ? { default: def as CatalogField['default'] } : {}),
    ...(choices ? { choices } : {}),
    ...(typeof props === 'object' && props !== null
      ? {
          properties: Object.entries(props as Record<string, RawField>).map(([k, p]) => ({
            key: k,
            label: String(p['label'] ?? k),
            type: String(p['type'] ?? 'string'),
            required: p['required'] === true,
            ...(p['multiple'] === true ? { multiple: true } : {}),
            ...(p['default'] !== undefined ? { default: p['default'] } : {}),
          })),
        }
      : {}),
  };
}

/**
 * The auth kind: Segment's `basic`, `oauth2`, `oauth-managed` as they are; no authentication
 * block is `none`; `custom` (credentials in settings) is `api_key` when one of its fields is a
 * credential (settingOf's `secret`), else `custom`.
 */
export function authKind(scheme: unknown, fields: readonly CatalogSetting[]): CatalogAuth {
  if (scheme === 'basic' || scheme === 'oauth2' || scheme === 'oauth-managed') return scheme;
  if (scheme !== 'custom') return 'none';
  return fields.some((f) => f.secret) ? 'api_key' : 'custom';
}

/** One loaded definition (the module's default export) as a manifest entry. */
export function entryOf(slug: string, def: Record<string, unknown>): CatalogEntry {
  const authentication = (def['authentication'] ?? {}) as {
    scheme?: unknown;
    fields?: Record<string, RawField>;
    testAuthentication?: unknown;
  };
  const authFields = Object.entries(authentication.fields ?? {}).map(([k, f]) => settingOf(k, f));
  const rules = settingRulesOf(authentication.testAuthentication, authFields);
  const actions: CatalogAction[] = Object.entries((def['actions'] ?? {}) as Record<string, RawField>).map(
    ([key, a]) => {
      const description = short(a['description']);
      const sub = a['defaultSubscription'];
      const syncMode = syncModeOf(a['syncMode']);
      const hooks = Object.keys((a['hooks'] ?? {}) as Record<string, unknown>);
      return {
        key,
        title: String(a['title'] ?? key),
        ...(description ? { description } : {}),
        ...(typeof sub === 'string' && sub !== '' ? { defaultSubscription: sub } : {}),
        ...(syncMode ? { syncMode } : {}),
        ...(hooks.length > 0 ? { hooks } : {}),
        fields: Object.entries((a['fields'] ?? {}) as Record<string, RawField>).map(([k, f]) =>
          fieldOf(k, f),
        ),
      };
    },
  );
  const rawActions = (def['actions'] ?? {}) as Record<string, { fields?: Record<string, PresetField> }>;
  const withFields = Object.fromEntries(
    Object.entries(rawActions).map(([k, a]) => [k, { fields: a.fields ?? {} }]),
  );
  const presets: CatalogPreset[] = ((def['presets'] ?? []) as RawField[]).flatMap((p): CatalogPreset[] => {
    const automatic = presetOf(p, withFields);
    if (automatic) return [{ ...automatic, name: automatic.name ?? automatic.action }];
    if (typeof p['partnerAction'] !== 'string' || typeof p['eventSlug'] !== 'string') return [];
    return [
      {
        name: String(p['name'] ?? p['partnerAction']),
        action: p['partnerAction'],
        eventSlug: p['eventSlug'],
      },
    ];
  });
  const name = String(def['name'] ?? slug);
  const description = short(def['description']);
  const audiences = typeof def['audienceFields'] === 'object' && def['audienceFields'] !== null;
  const audienceFields = Object.entries((def['audienceFields'] ?? {}) as Record<string, RawField>).map(
    ([k, f]) => settingOf(k, f),
  );
  return {
    slug,
    name,
    ...(description ? { description } : {}),
    category: categoryOf({ slug, name, description: description ?? '', audiences }),
    auth: authKind(authentication.scheme, authFields),
    authFields,
    ...(rules.length > 0 ? { settingRules: rules } : {}),
    actions,
    ...(presets.length > 0 ? { presets } : {}),
    ...(audienceFields.length > 0 ? { audienceFields } : {}),
    loads: true,
  };
}

/**
 * What the destination's `testAuthentication` refuses before it makes any request, read from its
 * code (never run: it may call the platform): a condition of the form `!settings.a && !settings.b`
 * (or a single `!settings.a`) that throws, as GA4's `One of Firebase App ID … or Measurement ID …
 * is required`, kept where none of those fields is flagged required. Other conditions are not read.
 */
export function settingRulesOf(
  testAuthentication: unknown,
  fields: readonly CatalogSetting[],
): CatalogSettingRule[] {
  if (typeof testAuthentication !== 'function') return [];
  const source = String(testAuthentication);
  const known = new Map(fields.map((f) => [f.key, f]));
  const out: CatalogSettingRule[] = [];
  const THROWING = /if\s*\(([^()]*)\)\s*\{?\s*throw new [\w.]+\(\s*(['"`])([^'"`]+)\2/g;
  for (const m of source.matchAll(THROWING)) {
    const parts = (m[1] ?? '').split('&&').map((p) => /^\s*!\s*settings\??\.(\w+)\s*$/.exec(p)?.[1]);
    if (parts.some((k) => k === undefined || !known.has(k))) continue;
    // In the settings' own order (GA4: Measurement ID, then Firebase App ID).
    const order = fields.map((f) => f.key);
    const anyOf = (parts as string[]).sort((a, b) => order.indexOf(a) - order.indexOf(b));
    if (anyOf.some((k) => known.get(k)?.required)) continue;
    out.push({ anyOf, message: m[3] ?? '' });
  }
  return out;
}

/** The first line of a load error, without the machine's paths. */
function reasonOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n')[0] ?? '').replaceAll(ROOT, '.').slice(0, 300);
}

/** The entry with each action that sends over a client of its own marked (segment-transport.ts). */
function withTransports(entry: CatalogEntry): CatalogEntry {
  const dist = join(require.resolve(`${PACKAGE}/package.json`), '..', 'dist');
  const actions = entry.actions.map((a) => {
    const transport = actionTransport(dist, entry.slug, a.key);
    return transport === undefined ? a : { ...a, transport };
  });
  return { ...entry, actions };
}

/** Loads every folder and builds the manifest (a few seconds: 170 modules and their SDKs). */
export function generateCatalog(): CatalogManifest {
  const destinations: CatalogEntry[] = [];
  const unloadable: { slug: string; reason: string }[] = [];
  for (const slug of folders()) {
    try {
      const mod = require(`${PACKAGE}/dist/destinations/${slug}`) as { default?: Record<string, unknown> };
      const def = mod.default;
      if (!def || typeof def !== 'object' || typeof def['actions'] !== 'object') {
        unloadable.push({ slug, reason: 'no destination definition is exported' });
        continue;
      }
      if (def['mode'] !== undefined && def['mode'] !== 'cloud') {
        unloadable.push({ slug, reason: `a ${String(def['mode'])}-mode destination, not a cloud one` });
        continue;
      }
      destinations.push(withTransports(entryOf(slug, def)));
    } catch (err) {
      unloadable.push({ slug, reason: reasonOf(err) });
    }
  }
  return { package: PACKAGE, version: installedVersion(), destinations, unloadable };
}

/** The manifest as the committed file holds it: one destination per line, a trailing newline. */
export function catalogText(m: CatalogManifest): string {
  const lines = m.destinations.map((d) => `    ${JSON.stringify(d)}`).join(',\n');
  const unloadable = m.unloadable.map((u) => `    ${JSON.stringify(u)}`).join(',\n');
  return `{\n  "package": ${JSON.stringify(m.package)},\n  "version": ${JSON.stringify(m.version)},\n  "destinations": [\n${lines}\n  ],\n  "unloadable": [\n${unloadable}\n  ]\n}\n`;
}

/** Writes the manifest when it changed; whether it did. */
export function writeCatalog(): boolean {
  const text = catalogText(generateCatalog());
  let before = '';
  try {
    before = readFileSync(CATALOG_FILE, 'utf8');
  } catch {
    // No manifest yet: written now.
  }
  if (before === text) return false;
  writeFileSync(CATALOG_FILE, text);
  return true;
}

// `--print` writes the manifest to stdout instead (the staleness test runs it in a child process,
// so the 170 modules never load into the test runner's).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--print')) process.stdout.write(catalogText(generateCatalog()));
  else if (writeCatalog()) console.log('wrote core/platforms/segment-action/catalog.json');
}
