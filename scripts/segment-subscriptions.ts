/**
 * Writes core/platforms/segment-action/default-subscriptions.json from the catalogue manifest
 * (catalog.json, scripts/segment-catalog.ts): each loadable destination's actions with their
 * default subscriptions (null for an action without one), the paths of the Segment event its
 * required fields read by default (`needs`: without them the action refuses the event), and its
 * automatic presets' actions and subscriptions (with the needed fields their mapping sets
 * otherwise). The decision layer in `store` reads it to know which events a segment_action
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
    const needs: Record<string, Record<string, string>> = {};
    for (const a of d.actions) {
      defaults[a.key] = a.defaultSubscription?.replace(/\s+/g, ' ').trim() ?? null;
      const own = neededPaths(a.fields);
      if (Object.keys(own).length > 0) needs[a.key] = own;
    }
    const presets = (d.presets ?? []).flatMap((p) => {
      if (p.subscribe === undefined) return [];
      const sets = [...Object.keys(p.mapping ?? {}), ...(p.omit ?? [])].filter(
        (f) => needs[p.action]?.[f] !== undefined,
      );
      return [{ action: p.action, subscribe: p.subscribe, ...(sets.length > 0 ? { sets } : {}) }];
    });
    out[d.slug] = {
      defaults,
      ...(Object.keys(needs).length > 0 ? { needs } : {}),
      ...(presets.length > 0 ? { presets } : {}),
    };
  }
  return out;
}

/** A plain dotted path from the event's root (`$.context.personas.computation_key`). */
const PLAIN_PATH = /^\$((?:\.[A-Za-z_][A-Za-z0-9_-]*)+)$/;

/**
 * The fields an action requires whose default is a plain `@path`, by field: the path without its
 * `$.`. actions-core refuses a payload missing a required field, so an event without the path
 * cannot be taken unless a preset or the settings map the field otherwise. A default with any
 * other directive, a condition, or a path with brackets is left out (the runtime judges).
 */
function neededPaths(fields: CatalogManifest['destinations'][number]['actions'][number]['fields']) {
  const out: Record<string, string> = {};
  for (const f of fields) {
    if (f.required !== true || f.conditional === true) continue;
    const d = f.default as Record<string, unknown> | undefined;
    if (!d || typeof d !== 'object' || Object.keys(d).length !== 1 || typeof d['@path'] !== 'string')
      continue;
    const m = PLAIN_PATH.exec(d['@path']);
    if (m) out[f.key] = (m[1] as string).slice(1);
  }
  return out;
}

/** Biome's line width (biome.json): an array of strings that fits in it is written on one line. */
const LINE_WIDTH = 110;

/** The file's text, as biome formats JSON. */
export function subscriptionText(table: DefaultSubscriptions): string {
  const text = JSON.stringify(table, null, 2).replace(
    /^( *)("[^"\n]*": )\[\n((?: *"(?:[^"\\\n]|\\.)*",?\n)+) *\](,?)$/gm,
    (whole, indent: string, key: string, items: string, comma: string) => {
      const values = items
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => line.trim().replace(/,$/, ''));
      const inline = `${indent}${key}[${values.join(', ')}]${comma}`;
      return inline.length <= LINE_WIDTH ? inline : whole;
    },
  );
  return `${text}\n`;
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
