/**
 * Meta's Dataset Quality API (docs/platforms.md §1; Meta's "Dataset Quality API" page of the
 * Conversions API docs): `GET {base}/{version}/dataset_quality?dataset_id=<pixel>&fields=web{…}
 * &access_token=…` answers, per web event of the dataset, its Event Match Quality (a score out
 * of 10 and each match key's coverage), its event coverage, deduplication key feedback, data
 * freshness and additional conversions reported. This file builds that request for a destination
 * with `config.diagnostics: true` and reads the answer into metric rows for `platform_diagnostics`
 * (core/warehouse/platform-diagnostics.ts): numbers, key kinds and Meta's own wording, never an
 * identifier. Pure.
 */
import type { Destination } from '../../../schemas/settings.ts';
import { scrubText } from '../platform-answer.ts';
import { baseUrl, configText } from '../prepare.ts';
import { META_API } from './api-version.ts';
import { META_BASE_URL } from './driver.ts';

/** The config key that turns the daily diagnostics on (a boolean; default off). */
export const DIAGNOSTICS_CONFIG = 'diagnostics';
/** The secret role the diagnostics request carries, as the events' requests do. */
export const DIAGNOSTICS_SECRET = 'access_token';

/**
 * What is asked for. Meta's page lists the dedup field as `dedup_key_feedback` in its field table
 * and as `dedupe_key_feedback` in every request and answer it shows: the examples' spelling is
 * asked for, and both are read.
 */
export const DATASET_QUALITY_FIELDS =
  'web{event_name,event_match_quality{composite_score,match_key_feedback,diagnostics},' +
  'event_coverage{percentage,goal_percentage},dedupe_key_feedback,data_freshness{upload_frequency},' +
  'acr{percentage},event_potential_aly_acr_increase{percentage}}';

/** Whether a destination asks for Meta's daily diagnostics (only `true` itself, never a string). */
export function diagnosticsEnabled(d: Readonly<Destination>): boolean {
  return d.type === 'meta_capi' && d.config?.[DIAGNOSTICS_CONFIG] === true;
}

/** The secret roles the scheduler needs for a destination's diagnostics (core/plan.ts grants them). */
export function diagnosticsSecretRoles(d: Readonly<Destination>): readonly string[] {
  return diagnosticsEnabled(d) && d.enabled !== false ? [DIAGNOSTICS_SECRET] : [];
}

/** The API version the request carries: the destination's `api_version`, else ours. */
export function diagnosticsVersion(d: Readonly<Destination>): string {
  return configText(d, 'api_version') ?? META_API.version;
}

/** The Dataset Quality request for a destination's pixel, with its access token in the query. */
export function datasetQualityUrl(d: Readonly<Destination>, accessToken: string): string {
  const query = new URLSearchParams({
    dataset_id: configText(d, 'pixel_id') ?? '',
    fields: DATASET_QUALITY_FIELDS,
    access_token: accessToken,
  });
  return `${baseUrl(d, META_BASE_URL)}/${diagnosticsVersion(d)}/dataset_quality?${query}`;
}

/** One metric Meta reported for one event of the dataset. */
export interface DatasetMetric {
  readonly event_name: string;
  /** `event_match_quality`, `match_key_coverage.<key>`, `event_coverage`, `dedup_rate`, … */
  readonly metric: string;
  readonly value: number | null;
  /** What goes with the number, as an object (bounded and scrubbed by the caller's row). */
  readonly detail: Readonly<Record<string, unknown>> | null;
}

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const percentage = (v: unknown): number | null => num(obj(v)?.['percentage']);
/** A name Meta gives a key or an event, kept only in a plain shape (never free text). */
const KEY_NAME = /^[A-Za-z0-9_]{1,40}$/;
/** Event names are the business's own (custom events included): bounded, and scrubbed. */
const eventName = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? scrubText(v).slice(0, 100) : undefined;

/** The metrics of one `web[]` entry. */
function entryMetrics(entry: Record<string, unknown>, event: string): DatasetMetric[] {
  const out: DatasetMetric[] = [];
  const add = (metric: string, value: number | null, detail: Record<string, unknown> | null = null) =>
    out.push({ event_name: event, metric, value, detail });
  const emq = obj(entry['event_match_quality']);
  if (emq) {
    const keys = Array.isArray(emq['match_key_feedback']) ? emq['match_key_feedback'] : [];
    const coverage: Record<string, number | null> = {};
    for (const k of keys) {
      const id = obj(k)?.['identifier'];
      if (typeof id === 'string' && KEY_NAME.test(id)) coverage[id] = percentage(obj(k)?.['coverage']);
    }
    if (emq['composite_score'] !== undefined || keys.length > 0)
      add('event_match_quality', num(emq['composite_score']), { match_keys: Object.keys(coverage) });
    for (const [id, pct] of Object.entries(coverage)) add(`match_key_coverage.${id}`, pct);
    const diagnostics = Array.isArray(emq['diagnostics']) ? emq['diagnostics'] : [];
    if (diagnostics.length > 0)
      add('emq_diagnostics', diagnostics.length, {
        diagnostics: diagnostics.slice(0, 5).map((x) => {
          const o = obj(x) ?? {};
          return {
            name: typeof o['name'] === 'string' ? o['name'] : null,
            percentage: num(o['percentage']),
            affected_event_count: num(o['affected_event_count']),
            total_event_count: num(o['total_event_count']),
          };
        }),
      });
  }
  const coverage = obj(entry['event_coverage']);
  if (coverage)
    add('event_coverage', percentage(coverage), { goal_percentage: num(coverage['goal_percentage']) });
  const dedup = entry['dedupe_key_feedback'] ?? entry['dedup_key_feedback'];
  if (Array.isArray(dedup) && dedup.length > 0) {
    // Meta's overall coverage is incremental per key: their sum is the share of browser events deduplicated.
    let rate: number | null = null;
    const keys: Record<string, unknown> = {};
    for (const f of dedup) {
      const o = obj(f) ?? {};
      const key = o['dedupe_key'] ?? o['dedup_key'];
      if (typeof key !== 'string' || !KEY_NAME.test(key)) continue;
      const overall = percentage(o['overall_browser_coverage_from_dedupe_key']);
      if (overall !== null) rate = Math.min(100, (rate ?? 0) + overall);
      keys[key] = {
        browser: percentage(o['browser_events_with_dedupe_key']),
        server: percentage(o['server_events_with_dedupe_key']),
        overall,
      };
    }
    add('dedup_rate', rate, { keys });
  }
  const freshness = obj(entry['data_freshness'])?.['upload_frequency'];
  if (typeof freshness === 'string' && KEY_NAME.test(freshness))
    add('data_freshness', null, { upload_frequency: freshness });
  if (obj(entry['acr'])) add('acr', percentage(entry['acr']));
  if (obj(entry['event_potential_aly_acr_increase']))
    add('acr_potential_increase', percentage(entry['event_potential_aly_acr_increase']));
  return out;
}

/**
 * The metrics of a Dataset Quality answer, one per event and metric (the first of a repeated
 * pair: an insertId is made of them), or undefined when the body is not one.
 */
export function readDatasetQuality(body: unknown): DatasetMetric[] | undefined {
  const web = obj(body)?.['web'];
  if (!Array.isArray(web)) return undefined;
  const seen = new Set<string>();
  const out: DatasetMetric[] = [];
  for (const raw of web) {
    const entry = obj(raw);
    const event = entry && eventName(entry['event_name']);
    if (!entry || !event) continue;
    for (const m of entryMetrics(entry, event)) {
      const key = `${m.event_name}\n${m.metric}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(m);
    }
  }
  return out;
}
