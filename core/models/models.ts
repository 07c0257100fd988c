/**
 * The incremental models in the plan (docs/sessions.md): their tables and views, and the options a
 * run takes, all from the settings (`warehouse.models`). core/warehouse/warehouse.ts lists them with the
 * other tables; the scheduler's `Model` job (functions/schedule/models.ts) runs their scripts.
 * Pure.
 */

import type { Settings } from '../../schemas/settings.ts';
import { partitionExpiration } from '../warehouse/retention.ts';
import { type ColumnPlan, type TablePlan, tableRef, type ViewPlan } from '../warehouse/table-plan.ts';
import { identityMapColumns, identityMergeColumns } from './identity-graph.ts';
import {
  c as col,
  DEFAULT_CONVERSIONS,
  erasureColumns,
  SESSION_TABLES,
  type SessionOptions,
  sessionColumns,
  watermarkColumns,
} from './sessions.ts';

/** The models the `Model` job runs, in order: sessions read nothing of identity, so either first. */
export const MODELS = Object.freeze(['identity_map', 'sessions'] as const);
export type ModelName = (typeof MODELS)[number];

/** View names of the models. */
export const MODEL_VIEWS = Object.freeze({
  firstTouch: 'first_touch',
  lastTouch: 'last_touch',
  personIds: 'person_ids',
} as const);

export const modelsEnabled = (settings: Readonly<Settings>): boolean =>
  settings.warehouse?.models?.enabled !== false;

/** The default schedule of the `Model` job. */
export const DEFAULT_MODEL_EVERY = '15m';

/** A run's options, from the settings. */
export function modelOptions(settings: Readonly<Settings>): Required<SessionOptions> {
  const m = settings.warehouse?.models;
  return {
    project: settings.project,
    dataset: settings.dataset ?? 'events',
    gapMinutes: m?.session_gap_minutes ?? 30,
    lookbackHours: m?.lookback_hours ?? 72,
    conversions: m?.conversions ?? DEFAULT_CONVERSIONS,
  };
}

/** The person of a row's `anonymous_id` / `user_id` pair, through identity_map. */
const personOf = (map: string, alias: string, anonymous: string, user: string) =>
  [
    `LEFT JOIN ${map} AS ${alias}a ON ${alias}a.identifier = CONCAT('anonymous_id:', ${anonymous})`,
    `LEFT JOIN ${map} AS ${alias}u ON ${alias}u.identifier = CONCAT('user_id:', ${user})`,
  ].join('\n');

const TOUCH_COLUMNS = [
  'session_id',
  'session_start',
  'landing_page',
  'referrer_host',
  'channel',
  'source',
  'medium',
  'campaign',
] as const;

/**
 * A touch view: each conversion event with one session of the same person that started at or
 * before it, the first one, or the last one with a channel other than direct (the last session
 * when all were direct), as the ad platforms count last non-direct clicks.
 */
function touchView(settings: Readonly<Settings>, which: 'first' | 'last'): ViewPlan {
  const o = modelOptions(settings);
  const ref = (t: string) => tableRef(o.project, o.dataset, t);
  const map = ref(SESSION_TABLES.identityMap);
  const order =
    which === 'first'
      ? 't.session_start, t.session_id'
      : "IF(IFNULL(t.channel, 'direct') = 'direct', 0, 1) DESC, t.session_start DESC, t.session_id DESC";
  const names = o.conversions.map((n) => `'${n.replace(/[^A-Za-z0-9_]/g, '')}'`).join(', ');
  return {
    name: which === 'first' ? MODEL_VIEWS.firstTouch : MODEL_VIEWS.lastTouch,
    description:
      which === 'first'
        ? 'Each conversion event with the first session of the same person (identity_map): first-touch attribution'
        : 'Each conversion event with the last non-direct session of the same person before it (the last session when all were direct): last-touch attribution',
    query: [
      'WITH conversions AS (',
      '  SELECT e.event_id, e.event_name, e.event_time, COALESCE(pa.person_id, pu.person_id) AS person_id',
      `  FROM ${ref('events_dedup')} AS e`,
      personOf(map, 'p', 'e.anonymous_id', 'e.user_id')
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n'),
      `  WHERE e.event_name IN (${names})`,
      '), touches AS (',
      '  SELECT s.*, COALESCE(sa.person_id, su.person_id) AS person_id',
      `  FROM ${ref(SESSION_TABLES.sessions)} AS s`,
      personOf(map, 's', 's.visitor_id', 's.visitor_id')
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n'),
      ')',
      'SELECT c.event_id, c.event_name, c.event_time, c.person_id,',
      TOUCH_COLUMNS.map((n) => `  ARRAY_AGG(t.${n} ORDER BY ${order} LIMIT 1)[SAFE_OFFSET(0)] AS ${n}`).join(
        ',\n',
      ),
      'FROM conversions AS c',
      'JOIN touches AS t ON t.person_id = c.person_id AND t.session_start <= c.event_time',
      'GROUP BY c.event_id, c.event_name, c.event_time, c.person_id',
    ].join('\n'),
    columns: [
      col('event_id', 'STRING', 'The conversion event'),
      col('event_name', 'STRING', 'Its name (one of warehouse.models.conversions)'),
      col('event_time', 'TIMESTAMP', 'When it happened'),
      col('person_id', 'STRING', 'Its person (identity_map)'),
      ...TOUCH_COLUMNS.map((n) => {
        const s = sessionColumns().find((x) => x.name === n) as ColumnPlan;
        return col(n, s.type, `The touch session’s ${n}`);
      }),
    ],
  };
}

/** The models' tables and views, or none when `warehouse.models.enabled` is false. */
export function modelPlan(settings: Readonly<Settings>): { tables: TablePlan[]; views: ViewPlan[] } {
  if (!modelsEnabled(settings)) return { tables: [], views: [] };
  const o = modelOptions(settings);
  const ref = (t: string) => tableRef(o.project, o.dataset, t);
  const tables: TablePlan[] = [
    {
      name: SESSION_TABLES.sessions,
      description: `Sessions: a visitor's events with no gap over ${o.gapMinutes} minutes, attributed to their first event (kept by the scheduler's Model job)`,
      columns: sessionColumns(),
      // Derived from events: kept as long as they are (docs/privacy.md#retention).
      timePartitioning: { type: 'DAY', field: 'session_start', ...partitionExpiration(settings, 'sessions') },
      clustering: ['visitor_id'],
    },
    {
      name: SESSION_TABLES.identityMap,
      description:
        'Every identifier seen (anonymous ids, user ids, hashed e-mails and phones) with its person',
      columns: identityMapColumns(),
      clustering: ['identifier'],
    },
    {
      name: SESSION_TABLES.identityMerges,
      description: 'Person ids merged into another: old → new, and where the old one resolves today',
      columns: identityMergeColumns(),
      clustering: ['old_person_id'],
    },
    {
      name: SESSION_TABLES.erasures,
      description: 'Identifiers erased from the models (SHA-256 only): no run brings them back',
      columns: erasureColumns(),
    },
    {
      name: SESSION_TABLES.watermarks,
      description: 'Where each incremental model stands: received_at up to which events are in it',
      columns: watermarkColumns(),
    },
  ];
  const views: ViewPlan[] = [
    {
      name: MODEL_VIEWS.personIds,
      description: 'Every person id ever published, with the person it resolves to today',
      query: [
        `SELECT DISTINCT person_id AS published_person_id, person_id FROM ${ref(SESSION_TABLES.identityMap)}`,
        'UNION ALL',
        `SELECT old_person_id, current_person_id FROM ${ref(SESSION_TABLES.identityMerges)}`,
      ].join('\n'),
      columns: [
        col('published_person_id', 'STRING', 'A person id, current or merged'),
        col('person_id', 'STRING', 'The person it is today'),
      ],
    },
    touchView(settings, 'first'),
    touchView(settings, 'last'),
  ];
  return { tables, views };
}
