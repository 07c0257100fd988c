/**
 * The identity graph in the warehouse (docs/sessions.md): `identity_map` gives every identifier
 * ever seen (anonymous ids, user ids, hashed e-mails and phones) the id of the person it belongs
 * to, `identity_merges` records every person id that was merged into another, and erasure removes
 * a person from the models for good. Pure: the SQL of one incremental run and of an erasure.
 *
 * A person is a connected component of identifiers that appeared together on a trusted event
 * (TRUSTED: not a write key's, nor a rule's copy). Its id is the smallest SHA-256 hex of the
 * identifiers trusted events joined, so the same graph always gives the same ids, and two persons
 * that turn out to be one keep the smaller id: the other is recorded as merged into it. An
 * untrusted event links nothing; it may only attach its anonymous id, when that id's component
 * holds anonymous ids alone, to the person of one of its other identifiers (the first such claim
 * wins), whose id they take: a browser joins itself to a person, never two persons together.
 *
 * A run works on a contracted graph: every identifier already mapped stands for its person, so
 * only the events past the watermark and the persons they name are read and relabelled. The
 * components are found by a bounded number of label-propagation passes with pointer jumping
 * (LABEL_PASSES); what one run cannot settle is written as far as it got and the watermark stays
 * (no claim is taken meanwhile), so the next run reads the same events again and finishes the job.
 */
import { CREDENTIAL_ATTRIBUTE, WRITE_KEY_CREDENTIAL } from '../event.ts';
import { sha256 } from '../pii.ts';
import { type ColumnPlan, tableRef } from '../warehouse/table-plan.ts';
import {
  c,
  declareSince,
  type ModelRun,
  moveWatermark,
  SESSION_TABLES,
  type SessionOptions,
} from './sessions.ts';

/** Passes per run: each halves the distance to a component's smallest label, or better. */
export const LABEL_PASSES = 6;

/** The kinds of identifier, in the order an event's are read. */
export const IDENTIFIER_KINDS = Object.freeze(['anonymous_id', 'user_id', 'email', 'phone'] as const);

/** Columns of `identity_map` (clustered by identifier). */
export function identityMapColumns(): ColumnPlan[] {
  return [
    c(
      'identifier',
      'STRING',
      '`kind:value`: anonymous_id:…, user_id:…, email:<sha256>, phone:<sha256>',
      'REQUIRED',
    ),
    c('kind', 'STRING', 'anonymous_id | user_id | email | phone', 'REQUIRED'),
    c(
      'person_id',
      'STRING',
      'The person it belongs to now (the smallest identifier hash of the component)',
      'REQUIRED',
    ),
    c('first_seen', 'TIMESTAMP', 'event_time of the first event that carried it', 'REQUIRED'),
    c('updated_at', 'TIMESTAMP', 'When a run last wrote this row', 'REQUIRED'),
  ];
}

/** Columns of `identity_merges`: one row per person id merged into another. */
export function identityMergeColumns(): ColumnPlan[] {
  return [
    c('old_person_id', 'STRING', 'The person id that stopped being one', 'REQUIRED'),
    c('new_person_id', 'STRING', 'The person it was merged into, at the time', 'REQUIRED'),
    c(
      'current_person_id',
      'STRING',
      'Where old_person_id resolves today (later merges followed)',
      'REQUIRED',
    ),
    c('merged_at', 'TIMESTAMP', 'When the run that merged them committed', 'REQUIRED'),
  ];
}

/**
 * Each identifier of an arrived event: `e.<column>` rewritten per kind. E-mails and phones are
 * compared hashed: a value already SHA-256 hex (hashed by the producer or the PII policy) is
 * taken as is, else hashed as the PII policy hashes (trimmed, lower-case; a phone's digits only).
 */
const KIND_VALUE: Readonly<Record<(typeof IDENTIFIER_KINDS)[number], string>> = {
  anonymous_id: 'anonymous_id',
  user_id: 'user_id',
  email: "IF(REGEXP_CONTAINS(email, r'^[0-9a-f]{64}$'), email, TO_HEX(SHA256(LOWER(TRIM(email)))))",
  phone:
    "IF(REGEXP_CONTAINS(phone, r'^[0-9a-f]{64}$'), phone, TO_HEX(SHA256(REGEXP_REPLACE(phone, r'[^0-9]', ''))))",
};

/**
 * The attribute a rule's published event carries (core/rules/rules.ts, ORIGIN_ATTRIBUTE; not
 * imported: the rules reach the models through the plan, and a circle would follow). A test keeps
 * the two equal.
 */
export const RULE_ORIGIN_ATTRIBUTE = 'origin';

/**
 * Whether an arrived event's word is taken (docs/sessions.md, "Whose word joins persons"): not when
 * a write key sent it (public: anyone can send anything with it), nor when a rule published it (a
 * copy of its trigger's identifiers, which bring their own evidence). Everything else came with a
 * project token, a Google identity, a verified translator (signature or token) or a native publish
 * (Pub/Sub's IAM). The attributes are the message's; the gateway writes `credential` over any
 * value a producer sent.
 */
export const TRUSTED_EVENT = [
  `IFNULL(JSON_VALUE(attributes, '$.${CREDENTIAL_ATTRIBUTE}'), '') != '${WRITE_KEY_CREDENTIAL}'`,
  `JSON_VALUE(attributes, '$.${RULE_ORIGIN_ATTRIBUTE}') IS NULL`,
].join(' AND ');

/** The order an untrusted event's identifiers are claimed in: a user id, else an e-mail, else a phone. */
const CLAIM_RANK = "CASE t.kind WHEN 'user_id' THEN 1 WHEN 'email' THEN 2 ELSE 3 END";

/** One pass: a label takes the smallest root of its own, its neighbours' and its root's root. */
function pass(): string {
  return [
    'CREATE OR REPLACE TEMP TABLE roots AS',
    'SELECT r.label, LEAST(r.root, IFNULL(n.root, r.root), IFNULL(j.root, r.root)) AS root',
    'FROM roots AS r',
    'LEFT JOIN (SELECT e.a AS label, MIN(q.root) AS root FROM links AS e JOIN roots AS q ON q.label = e.b GROUP BY e.a) AS n',
    '  ON n.label = r.label',
    'LEFT JOIN roots AS j ON j.label = r.root;',
  ].join('\n');
}

/** The script of one incremental identity run; its result row says what it read and wrote. */
export function identityRunSql(options: SessionOptions, upto: Date): ModelRun {
  const ref = (t: string) => tableRef(options.project, options.dataset, t);
  const map = ref(SESSION_TABLES.identityMap);
  const merges = ref(SESSION_TABLES.identityMerges);
  const sql = [
    declareSince(ref(SESSION_TABLES.watermarks), 'identity_map'),
    '',
    'BEGIN TRANSACTION;',
    '',
    '-- The identifiers of the events that arrived since (one read of events), bots left out.',
    '-- `trusted`: whose word it is (docs/sessions.md): not a write key’s, nor a rule’s copy.',
    'CREATE TEMP TABLE arrived AS',
    'SELECT event_id, message_id, event_time, anonymous_id, user_id, user.email AS email, user.phone AS phone,',
    `  ${TRUSTED_EVENT} AS trusted`,
    `FROM ${ref('events')}`,
    'WHERE received_at > since AND received_at <= @upto',
    '  AND event_time >= TIMESTAMP_SUB(@upto, INTERVAL @lookback_hours HOUR)',
    '  AND enriched.bot IS NOT TRUE',
    '  AND COALESCE(anonymous_id, user_id, user.email, user.phone) IS NOT NULL;',
    '',
    // One event is one message: two that share an event_id (a reused or guessed id) are two events.
    'CREATE TEMP TABLE ids AS',
    "SELECT CONCAT(message_id, '/', event_id) AS ev, event_id, event_time, trusted, kind, identifier,",
    '  TO_HEX(SHA256(identifier)) AS h FROM (',
    IDENTIFIER_KINDS.map(
      (k) =>
        `  SELECT message_id, event_id, event_time, trusted, '${k}' AS kind, CONCAT('${k}:', ${KIND_VALUE[k]}) AS identifier FROM arrived WHERE ${k} IS NOT NULL`,
    ).join('\n  UNION ALL\n'),
    `) WHERE TO_HEX(SHA256(identifier)) NOT IN (SELECT identifier_hash FROM ${ref(SESSION_TABLES.erasures)});`,
    '',
    '-- Each identifier stands for its person when it has one (the contracted graph).',
    'CREATE TEMP TABLE labelled AS',
    'SELECT i.ev, i.event_id, i.event_time, i.trusted, i.kind, i.identifier, IFNULL(m.person_id, i.h) AS label',
    `FROM ids AS i LEFT JOIN ${map} AS m ON m.identifier = i.identifier;`,
    '',
    '-- Labels on one trusted event are linked (to the event’s smallest label, both ways); a label',
    '-- of an untrusted event only to itself (a node of the graph, linked to nothing).',
    'CREATE TEMP TABLE links AS',
    'SELECT DISTINCT a, b FROM (',
    '  SELECT label AS a, IF(trusted, MIN(label) OVER (PARTITION BY ev), label) AS b FROM labelled',
    '  UNION ALL',
    '  SELECT IF(trusted, MIN(label) OVER (PARTITION BY ev), label) AS a, label AS b FROM labelled',
    ');',
    '',
    'CREATE TEMP TABLE roots AS SELECT a AS label, MIN(b) AS root FROM links GROUP BY a;',
    ...Array.from({ length: LABEL_PASSES }, pass),
    '',
    '-- Links whose ends still have different roots: the passes ran out (the watermark stays, and',
    '-- nothing attaches to a component that may not be whole yet).',
    'CREATE TEMP TABLE unsettled AS',
    'SELECT l.a FROM links AS l JOIN roots AS x ON x.label = l.a JOIN roots AS y ON y.label = l.b',
    'WHERE x.root != y.root;',
    '',
    '-- What untrusted events claim: the component of their anonymous id belongs to the person of',
    '-- their first other identifier (user id, else e-mail, else phone); the earliest claim wins.',
    'CREATE TEMP TABLE claims AS',
    'SELECT ra.root, ARRAY_AGG(rt.root ORDER BY a.event_time, a.event_id, a.ev,',
    `  ${CLAIM_RANK} LIMIT 1)[OFFSET(0)] AS target`,
    "FROM labelled AS a JOIN labelled AS t ON t.ev = a.ev AND t.kind != 'anonymous_id'",
    'JOIN roots AS ra ON ra.label = a.label JOIN roots AS rt ON rt.label = t.label',
    "WHERE NOT a.trusted AND a.kind = 'anonymous_id' AND NOT EXISTS (SELECT 1 FROM unsettled)",
    'GROUP BY ra.root;',
    '',
    '-- A claim holds only for a component of anonymous ids alone (nobody’s yet, new or stored):',
    '-- one that holds a user id, an e-mail or a phone is somebody, and a claim never joins two.',
    'CREATE TEMP TABLE attached AS',
    'SELECT c.root, c.target FROM claims AS c',
    'WHERE c.root NOT IN (',
    "  SELECT r.root FROM roots AS r JOIN labelled AS l ON l.label = r.label WHERE l.kind != 'anonymous_id'",
    '  UNION DISTINCT',
    `  SELECT r.root FROM roots AS r JOIN ${map} AS m ON m.person_id = r.label`,
    "  WHERE m.kind != 'anonymous_id' AND r.root IN (SELECT root FROM claims)",
    ');',
    '',
    'CREATE TEMP TABLE resolved AS',
    'SELECT r.label, IFNULL(x.target, r.root) AS root FROM roots AS r LEFT JOIN attached AS x ON x.root = r.root;',
    '',
    '-- Persons merged into another by this run.',
    'CREATE TEMP TABLE merged AS',
    `SELECT DISTINCT r.label AS old_person_id, r.root AS new_person_id FROM resolved AS r`,
    `WHERE r.root != r.label AND r.label IN (SELECT person_id FROM ${map});`,
    '',
    '-- New identifiers, and stored ones whose person changed.',
    'CREATE TEMP TABLE changed AS',
    'SELECT l.identifier, ANY_VALUE(l.kind) AS kind, ANY_VALUE(r.root) AS person_id, MIN(l.event_time) AS first_seen',
    'FROM labelled AS l JOIN resolved AS r ON r.label = l.label',
    `LEFT JOIN ${map} AS m ON m.identifier = l.identifier`,
    'WHERE m.identifier IS NULL OR m.person_id != r.root',
    'GROUP BY l.identifier;',
    '',
    '-- Members of a merged person follow it (one correlated lookup: merged has a row per old id).',
    `UPDATE ${map} AS m`,
    'SET person_id = (SELECT x.new_person_id FROM merged AS x WHERE x.old_person_id = m.person_id),',
    '  updated_at = CURRENT_TIMESTAMP()',
    'WHERE m.person_id IN (SELECT old_person_id FROM merged);',
    '',
    `MERGE ${map} AS t`,
    'USING changed AS s',
    'ON t.identifier = s.identifier',
    'WHEN MATCHED AND t.person_id != s.person_id THEN UPDATE SET person_id = s.person_id, updated_at = CURRENT_TIMESTAMP()',
    'WHEN NOT MATCHED THEN INSERT (identifier, kind, person_id, first_seen, updated_at)',
    '  VALUES (s.identifier, s.kind, s.person_id, s.first_seen, CURRENT_TIMESTAMP());',
    '',
    '-- Every published id keeps resolving: earlier merges into a merged person follow it.',
    `UPDATE ${merges} AS m`,
    'SET current_person_id = (SELECT x.new_person_id FROM merged AS x WHERE x.old_person_id = m.current_person_id)',
    'WHERE m.current_person_id IN (SELECT old_person_id FROM merged);',
    `INSERT INTO ${merges} (old_person_id, new_person_id, current_person_id, merged_at)`,
    'SELECT old_person_id, new_person_id, new_person_id, CURRENT_TIMESTAMP() FROM merged;',
    '',
    moveWatermark(
      ref(SESSION_TABLES.watermarks),
      'identity_map',
      'EXISTS (SELECT 1 FROM arrived) AND NOT EXISTS (SELECT 1 FROM unsettled)',
    ),
    '',
    'COMMIT TRANSACTION;',
    '',
    'SELECT (SELECT COUNT(*) FROM ids) AS identifiers, (SELECT COUNT(*) FROM changed) AS written,',
    '  (SELECT COUNT(*) FROM merged) AS merged, (SELECT COUNT(*) FROM unsettled) AS unsettled;',
  ].join('\n');
  return { sql, params: { upto, lookback_hours: options.lookbackHours ?? 72 } };
}

/**
 * A person's identifier in the graph's form (what erasure and export take), from what they give: `kind:value`
 * with an e-mail or phone hashed as the identity run hashes it (already SHA-256 hex: as is), or a
 * person id (64 hex). Undefined when it is neither.
 */
export function erasureIdentifier(text: string): string | undefined {
  const value = text.trim();
  if (/^[0-9a-f]{64}$/.test(value)) return value;
  const at = value.indexOf(':');
  const kind = value.slice(0, at);
  const rest = value.slice(at + 1);
  if (at < 1 || rest === '' || !(IDENTIFIER_KINDS as readonly string[]).includes(kind)) return undefined;
  if ((kind === 'email' || kind === 'phone') && !/^[0-9a-f]{64}$/.test(rest))
    return `${kind}:${sha256(kind === 'email' ? rest.trim().toLowerCase() : rest.replace(/[^0-9]/g, ''))}`;
  return `${kind}:${rest}`;
}
