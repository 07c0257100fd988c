/**
 * Writes core/platforms/segment-action/oauth-destinations.json: for each catalogue destination
 * whose Segment definition authenticates with OAuth (`oauth2`, `oauth-managed`), whether the
 * definition has a `refreshAccessToken` (the function the runtime calls after a 401), the token
 * endpoint that function names where its text has one literal URL, and which of the connection's
 * credentials it reads (`auth.refreshToken`, `auth.clientId`, `auth.clientSecret`). Read from the
 * installed package's code at build time, as scripts/segment-catalog.ts reads the manifest, so the
 * settings check and the docs never load a destination. `reads` comes from the function's own text:
 * a destination whose function hands `auth` to a helper lists nothing, and the check then requires
 * no credential by name (docs/catalog-destinations.md, "OAuth"). Run after the manifest is written
 * (`npx node scripts/segment-oauth.ts`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { CatalogManifest } from '../core/platforms/segment-action/catalog.ts';
import {
  type OAuthDefinition,
  type OAuthDefinitions,
  ROLE_OF_CREDENTIAL,
} from '../core/platforms/segment-action/oauth.ts';

const ROOT = resolve(import.meta.dirname, '..');
export const OAUTH_FILE = join(ROOT, 'core/platforms/segment-action/oauth-destinations.json');
const CATALOG_FILE = join(ROOT, 'core/platforms/segment-action/catalog.json');
const require = createRequire(import.meta.url);

/** What the file says of one destination, from its definition's `authentication`. */
export function oauthDefinitionOf(authentication: {
  readonly scheme?: string;
  readonly refreshAccessToken?: unknown;
}): OAuthDefinition {
  const refresh = authentication.refreshAccessToken;
  const text = typeof refresh === 'function' ? String(refresh) : '';
  const urls = [
    ...new Set([...text.matchAll(/https:\/\/[A-Za-z0-9.-]+(?:\/[A-Za-z0-9._~/-]*)?/g)].map((m) => m[0])),
  ];
  const reads = (['refreshToken', 'clientId', 'clientSecret'] as const).filter((k) =>
    new RegExp(`\\bauth\\??\\.${k}\\b`).test(text),
  );
  return {
    scheme: authentication.scheme === 'oauth-managed' ? 'oauth-managed' : 'oauth2',
    refresh: text !== '',
    ...(urls.length === 1 ? { tokenUrl: urls[0] as string } : {}),
    reads,
  };
}

/** Every OAuth destination of the manifest, loaded from the installed package. */
export function oauthTable(manifest: Pick<CatalogManifest, 'destinations' | 'version'>): OAuthDefinitions {
  const destinations: Record<string, OAuthDefinition> = {};
  for (const d of manifest.destinations) {
    if (d.auth !== 'oauth2' && d.auth !== 'oauth-managed') continue;
    const mod = require(`@segment/action-destinations/dist/destinations/${d.slug}`) as {
      default: { authentication: { scheme?: string; refreshAccessToken?: unknown } };
    };
    destinations[d.slug] = oauthDefinitionOf(mod.default.authentication);
  }
  return { version: manifest.version, destinations };
}

/**
 * The generated list of docs/catalog-destinations.md ("OAuth"): every OAuth destination, how it is
 * configured here, the token endpoint its refresh function names, and what its connection must name.
 */
export function oauthDocTable(
  manifest: Pick<CatalogManifest, 'destinations'>,
  table: OAuthDefinitions,
  tokenAsSecret: ReadonlySet<string>,
): string {
  const rows = manifest.destinations
    .filter((d) => Object.hasOwn(table.destinations, d.slug))
    .map((d) => {
      const o = table.destinations[d.slug] as OAuthDefinition;
      const needs = o.refresh
        ? o.reads.length > 0
          ? o.reads.map((k) => `\`${ROLE_OF_CREDENTIAL[k]}\``).join(', ')
          : 'what its settings and helper read (not named in its code)'
        : '`access_token` (a long-lived token)';
      const how = [
        'an `oauth2` connection',
        ...(tokenAsSecret.has(d.slug) ? ['or `secrets.access_token`'] : []),
      ].join(' ');
      return `| \`${d.slug}\` | ${d.name} | ${d.auth} | ${how} | ${o.refresh ? 'yes' : 'no'} | ${o.tokenUrl ? `\`${o.tokenUrl}\`` : '—'} | ${needs} |`;
    });
  return [
    `${rows.length} OAuth destinations in @segment/action-destinations ${table.version}, every one configurable:`,
    '',
    '| destination | name | kind | configured with | refreshed | token endpoint (its code) | the connection names |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** Writes the table from the committed manifest; true when it changed. */
export function writeOAuthTable(): boolean {
  const manifest = JSON.parse(readFileSync(CATALOG_FILE, 'utf8')) as CatalogManifest;
  const table = oauthTable(manifest);
  let before: unknown;
  try {
    before = JSON.parse(readFileSync(OAUTH_FILE, 'utf8'));
  } catch {
    // No table yet: written now.
  }
  // Compared as data: biome formats the committed file its own way.
  if (JSON.stringify(before) === JSON.stringify(table)) return false;
  writeFileSync(OAUTH_FILE, `${JSON.stringify(table, null, 2)}\n`);
  return true;
}

if (import.meta.main && writeOAuthTable())
  console.log('wrote core/platforms/segment-action/oauth-destinations.json');
