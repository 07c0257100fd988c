/**
 * Writes core/platforms/segment-action/default-subscriptions.json from the catalogue manifest
 * (catalog.json, scripts/segment-catalog.ts): each loadable destination's actions with their
 * default subscriptions (null for an action without one) and its automatic presets' actions and
 * subscriptions. The decision layer in `store` reads it to know which events a segment_action
 * destination's actions take (subscription.ts) without loading the 1.7 MB manifest or
 * actions-core. Run after the manifest is written (`npx node scripts/segment-subscriptions.ts`);
 * test/unit/scripts/segment-subscriptions.test.ts fails when the committed table is not the manifest's.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CatalogManifest } from '../core/platforms/segment-action/catalog.ts';
import type {
  DefaultSubscriptions,
  DestinationSubscriptions,
} from '../core/platforms/segment-action/subscription.ts';

const ROOT = resolve(import.meta.dirname, '..');
export const SUBSCRIPTIONS_FILE = join(ROOT, 'core/platforms/segment-action/default-subscriptions.json');
const CATALOG_FILE = join(ROOT, 'core/platforms/segment-action/catalog.json');

/**
 * Every destination's actions, each with its default subscription (white space collapsed) or
 * null, and its presets that run (those with a subscription), as Segment's parser reads them.
 */
export function subscriptionTable(manifest: Pick<CatalogManifest, 'destinations'>): DefaultSubscriptions {
  const out: Record<string, DestinationSubscriptions> = {};
  for (const d of manifest.destinations) {
    const defaults: Record<string, string | null> = {};
    for (const a of d.actions) defaults[a.key] = a.defaultSubscription?.replace(/\s+/g, ' ').trim() ?? null;
    const presets = (d.presets ?? []).flatMap((p) =>
      p.subscribe === undefined ? [] : [{ action: p.action, subscribe: p.subscribe }],
    );
    out[d.slug] = presets.length > 0 ? { defaults, presets } : { defaults };
  }
  return out;
}

/** The file's text, as biome formats JSON. */
export function subscriptionText(table: DefaultSubscriptions): string {
  return `${JSON.stringify(table, null, 2)}\n`;
}

/** Writes the table from the committed manifest; true when it changed. */
export function writeSubscriptions(): boolean {
  const manifest = JSON.parse(readFileSync(CATALOG_FILE, 'utf8')) as CatalogManifest;
  const text = subscriptionText(subscriptionTable(manifest));
  let before = '';
  try {
    before = readFileSync(SUBSCRIPTIONS_FILE, 'utf8');
  } catch {
    // No table yet: written now.
  }
  if (before === text) return false;
  writeFileSync(SUBSCRIPTIONS_FILE, text);
  return true;
}

if (import.meta.main && writeSubscriptions())
  console.log('wrote core/platforms/segment-action/default-subscriptions.json');
