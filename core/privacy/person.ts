/**
 * What names one person in the stored rows, shared by access requests (export-person.ts) and
 * erasure (erasure.ts): an event row's identifiers in the identity graph's form, the graph's
 * widening of a person's identifiers, and the needles that find their values in free-form rows.
 */
import { IDENTIFIER_KINDS, TRUSTED_EVENT } from '../models/identity-graph.ts';
import { SESSION_TABLES } from '../models/sessions.ts';
import { sha256 } from '../pii.ts';
import { tableRef } from '../warehouse/table-plan.ts';
import { TABLES } from '../warehouse/warehouse.ts';

const HEX64 = "r'^[0-9a-f]{64}$'";

/**
 * An event row's identifier of one kind, as the identity graph writes it: e-mails and phones
 * compared hashed (a stored SHA-256 hex as is, else hashed as the PII policy hashes: trimmed and
 * lower-case, a phone's digits only).
 */
export const EVENT_IDENTIFIER: Readonly<Record<(typeof IDENTIFIER_KINDS)[number], string>> = {
  anonymous_id: "CONCAT('anonymous_id:', anonymous_id)",
  user_id: "CONCAT('user_id:', user_id)",
  email: `CONCAT('email:', IF(REGEXP_CONTAINS(user.email, ${HEX64}), user.email, TO_HEX(SHA256(LOWER(TRIM(user.email))))))`,
  phone: `CONCAT('phone:', IF(REGEXP_CONTAINS(user.phone, ${HEX64}), user.phone, TO_HEX(SHA256(REGEXP_REPLACE(user.phone, r'[^0-9]', '')))))`,
};

/**
 * The raw texts to look for in refused payloads besides the identifiers' values: an e-mail or a
 * phone as the person gave it (the stored identifiers hold only its hash).
 */
export function rawNeedles(given: readonly string[]): string[] {
  const out = new Set<string>();
  for (const text of given) {
    const at = text.indexOf(':');
    const kind = text.slice(0, at).trim();
    const value = text.slice(at + 1).trim();
    if (at > 0 && value !== '' && (kind === 'email' || kind === 'phone'))
      out.add(kind === 'email' ? value.toLowerCase() : value);
  }
  return [...out];
}

/**
 * `WITH … ids AS (…)`: the person's identifiers — those given (`@identifiers`), and with the
 * identity graph every identifier of their person (current or merged person ids given too).
 */
export function personIdsSql(project: string, dataset: string, identityGraph: boolean): string {
  const map = tableRef(project, dataset, SESSION_TABLES.identityMap);
  const merges = tableRef(project, dataset, SESSION_TABLES.identityMerges);
  const ids = identityGraph
    ? [
        'person AS (',
        `  SELECT person_id FROM ${map} WHERE identifier IN UNNEST(@identifiers) OR person_id IN UNNEST(@identifiers)`,
        '  UNION DISTINCT',
        `  SELECT current_person_id FROM ${merges} WHERE old_person_id IN UNNEST(@identifiers)`,
        '),',
        'ids AS (',
        "  SELECT id AS identifier FROM UNNEST(@identifiers) AS id WHERE STRPOS(id, ':') > 0",
        '  UNION DISTINCT',
        `  SELECT identifier FROM ${map} WHERE person_id IN (SELECT person_id FROM person)`,
        ')',
      ]
    : ["ids AS (SELECT id AS identifier FROM UNNEST(@identifiers) AS id WHERE STRPOS(id, ':') > 0)"];
  return ['WITH', ...ids].join('\n');
}

/** A SHA-256 hex value. */
export const HEX64_PATTERN = /^[0-9a-f]{64}$/;
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
/** What may stand before and after a value for it to be the whole value (JSON, a URL, a header). */
const BEFORE = `(?:^|["=/&?,;:\\s\\\\])`;
const AFTER = `(?:$|["&#/,;\\s\\\\])`;

/**
 * The needles of a request: the values of its (widened) identifiers, and the raw texts — an
 * e-mail as written and percent-encoded, a phone as written, its digits, its E.164 form and that
 * form's SHA-256 — each as a pattern that matches it as a whole value (e-mails case-insensitive).
 */
export function needlePatterns(identifiers: readonly string[], raw: readonly string[]): string[] {
  const values = new Map<string, boolean>(); // value → case-insensitive
  const add = (v: string, ci = false) => {
    if (v.length >= 3) values.set(v, ci || (values.get(v) ?? false));
  };
  for (const id of identifiers) {
    const at = id.indexOf(':');
    if (at > 0) add(id.slice(at + 1));
  }
  for (const text of raw) {
    if (text.includes('@')) {
      add(text, true);
      add(text.replace('@', '%40'), true);
    } else {
      const digits = text.replace(/[^0-9]/g, '');
      add(text);
      if (digits.length >= 6) {
        add(digits);
        add(`+${digits}`);
        add(sha256(`+${digits}`));
      }
    }
  }
  return [...values].map(([v, ci]) => `${ci ? '(?i)' : ''}${BEFORE}${escapeRegex(v)}${AFTER}`).sort();
}

/** A row (or column) whose JSON holds one of `@patterns`. */
export const matchesJson = (expr: string) =>
  `EXISTS (SELECT 1 FROM UNNEST(@patterns) AS p WHERE REGEXP_CONTAINS(${expr}, p))`;

/**
 * The widening query (an erasure's first pass, an export's first query): the given identifiers, the graph's person's, and every
 * identifier of a trusted event that carries one of them (docs/sessions.md: a write key's event is
 * anyone's word, so it joins nobody here either). One column, `identifier`.
 */
export function expandSql(options: {
  readonly project: string;
  readonly dataset: string;
  readonly identityGraph: boolean;
}): string {
  const ref = (t: string) => tableRef(options.project, options.dataset, t);
  const events = ref(TABLES.events);
  const kinds = IDENTIFIER_KINDS.map((k) => EVENT_IDENTIFIER[k]);
  return [
    personIdsSql(options.project, options.dataset, options.identityGraph),
    'SELECT identifier FROM ids',
    'UNION DISTINCT',
    `SELECT id FROM ${events} AS e, UNNEST([${kinds.join(', ')}]) AS id`,
    `WHERE id IS NOT NULL AND ${TRUSTED_EVENT}`,
    `  AND (${kinds.map((k) => `${k} IN (SELECT identifier FROM ids)`).join(' OR ')})`,
  ].join('\n');
}
