/**
 * The creator's guesses, each with why (docs/creator-inference.md#guesses): where each column
 * goes (suggest.ts, then corrected with what a whole payload shows), the event's name, which
 * column is the event time, which columns read as consent, Meta's action source. A guess is a
 * starting point the page shows and the person changes; none is applied out of sight. Pure.
 */
import { eventNameProblem, lookupEvent, nearCatalogueName } from '../../schemas/catalogue.ts';
import { instant, readPattern } from '../formats/patterns.ts';
import { fieldName, nameWords } from './names.ts';
import type { InferredField } from './sample.ts';
import { suggestMappings } from './suggest.ts';

/** What the event time must fall in to be accepted (the gateway's window, core/event.ts). */
export interface TimeWindow {
  readonly now: number;
  readonly pastMs: number;
  readonly futureMs: number;
}

/** One column's guess: where it goes, and why. */
export interface ColumnGuess {
  readonly column: string;
  /** `event_data`, a context target, or `skip`. */
  readonly target: string;
  readonly field?: string;
  readonly why: string;
}

export interface Guesses {
  readonly columns: ColumnGuess[];
  /** The event's name, when a column names it (`type`: `checkout.session.completed`). */
  readonly eventName?: { readonly name: string; readonly why: string };
  /**
   * Why the event time is the column chosen, or the time of arrival; `outside`: the column that
   * would be the event time but whose values fall outside the gateway's window.
   */
  readonly eventTime: { readonly column?: string; readonly outside?: string; readonly why: string };
  /** Columns whose names and yes/no values read as consent: offered per purpose, never applied. */
  readonly consent: readonly { readonly column: string; readonly why: string }[];
  /** Meta's action_source, from whether a page URL is mapped. */
  readonly actionSource: { readonly value: string; readonly why: string };
}

const words = (column: string) => nameWords(column).join('');
const leaf = (column: string) => column.slice(column.lastIndexOf('.') + 1);
const depth = (column: string) => column.split('.').length - 1;

/** Names a page's URL has; `cancel_url`, `avatar_url` or an API's `url` inside an object are not one. */
const PAGE_URL = new Set(['url', 'pageurl', 'pagelocation', 'landingpage', 'pagelink', 'href', 'currenturl']);
const PAGE_PARENTS = new Set(['', 'page', 'context.page', 'properties', 'context']);

/** Event time names, strongest first: when it happened, when it was created, some date; lifecycle dates last. */
const TIME_RANKS: readonly [RegExp, number, string][] = [
  [
    /^(occurred|happened|eventtime|eventtimestamp|eventdate|timestamp|ts|time|datetime)/,
    10,
    'names when it happened',
  ],
  [
    /(created|creation|ordered|orderdate|purchase|placed|submitted|erstellt|bestell)/,
    8,
    'names when it was created',
  ],
  [
    /(cancel|close|delete|due|expir|end|updated|modif|paid|complet|push|start|refund|archiv)/,
    1,
    'names a later step',
  ],
  [/(date|time|datum|zeit|fecha|_at$)/, 5, 'names a date'],
];

const PERSON_PARENT =
  /billing|shipping|customer|user|address|contact|buyer|person|profile|details|member|client|sender|owner|lead/;
const CONSENT_NAME = /consent|optin|opt_in|accepts?marketing|marketing|newsletter|gdpr|tracking|cookies?/;

function instantOf(value: unknown, f: InferredField): number | undefined {
  if (f.pattern === 'epoch_seconds') return Number(value) * 1000;
  if (f.pattern === 'epoch_millis') return Number(value);
  if (typeof value !== 'string') return undefined;
  if (!f.pattern || f.pattern === 'ISO 8601' || f.pattern === 'RFC 3339') {
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : t;
  }
  const parts = readPattern(value.trim(), f.pattern);
  return parts ? instant(parts) : undefined;
}

/** How many of a column's values fall outside the window (undefined: none could be read). */
function outside(column: string, f: InferredField, rows: readonly Record<string, unknown>[], w: TimeWindow) {
  let read = 0;
  let out = 0;
  for (const row of rows) {
    const t = instantOf(row[column], f);
    if (t === undefined) continue;
    read++;
    if (t < w.now - w.pastMs || t > w.now + w.futureMs) out++;
  }
  return read === 0 ? undefined : out;
}

function timeRank(f: InferredField): { rank: number; why: string } {
  const name = words(leaf(f.name));
  const snake = fieldName(leaf(f.name));
  let rank = 3;
  let why = 'holds times';
  for (const [re, r, w] of TIME_RANKS)
    if (re.test(name) || re.test(snake)) {
      rank = r;
      why = w;
      break;
    }
  // `date_created_gmt` beats `date_created` (the site's time zone, no offset written).
  if (/(gmt|utc)$/.test(name)) rank += 1;
  // The payload's own time beats a nested object's (`issue.created_at` over `issue.milestone.created_at`).
  return { rank: rank - depth(f.name) * 0.5, why };
}

const isTime = (f: InferredField) => f.type === 'timestamp' || f.type === 'date';

function chooseEventTime(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  window: TimeWindow | undefined,
): Guesses['eventTime'] {
  const ranked = fields
    .filter((f) => isTime(f) && f.distinct > 0)
    .map((f) => ({ f, ...timeRank(f) }))
    .sort((a, b) => b.rank - a.rank);
  const best = ranked[0];
  if (!best) return { why: 'no column holds times: the event time is when it arrives' };
  const others =
    ranked.length > 1
      ? ` (over ${ranked
          .slice(1, 3)
          .map((r) => r.f.name)
          .join(', ')})`
      : '';
  const out = window ? outside(best.f.name, best.f, rows, window) : 0;
  if (out) {
    const days = Math.round((window as TimeWindow).pastMs / 86_400_000);
    const share = out === rows.length ? 'the sample’s times are' : `${out} of its ${rows.length} values are`;
    return {
      outside: best.f.name,
      why: `${best.f.name} ${best.why}, but ${share} outside the accepted window (${days} days back to now): the event time is when each row arrives, and ${best.f.name} is kept as a field`,
    };
  }
  return { column: best.f.name, why: `${best.f.name} ${best.why}${others}` };
}

/** A name for the event from a column that names it, when the sample has one value there. */
function chooseEventName(
  fields: readonly InferredField[],
  named: readonly string[],
): Guesses['eventName'] | undefined {
  const candidates = [
    ...named,
    ...fields
      .filter((f) => depth(f.name) === 0 && /^(type|event|eventtype|eventname)$/.test(words(f.name)))
      .map((f) => f.name),
  ];
  for (const column of candidates) {
    const f = fields.find((x) => x.name === column);
    const value = f?.examples[0];
    if (f?.distinct !== 1 || typeof value !== 'string') continue;
    const name = fieldName(value).slice(0, 40);
    const taken = lookupEvent(name) ? name : nearCatalogueName(name);
    if (!taken) return { name, why: `from ${column} = "${value}"` };
    return ownName(name, taken, column, value);
  }
  return undefined;
}

/**
 * A name the registry takes when the value names a built-in event, or one too close to it
 * (Mailchimp's `type=subscribe`): the creator defines a new event, so `_webhook` is added, and
 * the reason says so. None when even that is refused.
 */
function ownName(name: string, builtIn: string, column: string, value: string): Guesses['eventName'] {
  const own = `${name.slice(0, 32)}_webhook`;
  if (eventNameProblem(own) || lookupEvent(own) || nearCatalogueName(own)) return undefined;
  return {
    name: own,
    why: `from ${column} = "${value}", with "_webhook" added: ${builtIn} is a built-in event’s name`,
  };
}

/** The guesses for a sample's inferred fields (and its rows, for the event time's window). */
export function guessChoices(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  options: { readonly window?: TimeWindow } = {},
): Guesses {
  const suggestions = suggestMappings(
    fields.map((f) => ({ name: f.name, type: f.type, ...(f.format ? { format: f.format } : {}) })),
  );
  const eventTime = chooseEventTime(fields, rows, options.window);
  const named: string[] = [];
  const consent: { column: string; why: string }[] = [];
  const columns = suggestions.map((s, i): ColumnGuess => {
    const f = fields[i] as InferredField;
    const own = { target: 'event_data', field: s.field ?? fieldName(s.column) };
    if (f.distinct === 0)
      return {
        column: s.column,
        target: 'skip',
        why: 'always empty in the sample (null or ""): left out, as nothing shows its type',
      };
    if (s.column === eventTime.column)
      return { column: s.column, target: 'event_time', why: `the event time: ${eventTime.why}` };
    if (s.column === eventTime.outside)
      return {
        column: s.column,
        ...own,
        why: 'would be the event time, but is outside the accepted window (see above)',
      };
    if (s.target === 'event_time')
      return { column: s.column, ...own, why: `a time, but not the event time (${eventTime.why})` };
    if (s.target === 'event_name') {
      named.push(s.column);
      return {
        column: s.column,
        ...own,
        why: 'names the event per row: one event is made here, named above; kept as a field',
      };
    }
    if (s.target.startsWith('consent.') || (f.type === 'boolean' && CONSENT_NAME.test(words(s.column)))) {
      const why = `reads like consent (${s.column}): choose the purposes it covers below; kept as a field`;
      consent.push({ column: s.column, why: `${s.column} reads like consent` });
      return { column: s.column, ...own, why };
    }
    // A person's details inside another object (`issue.state`, `repository.language`) are not
    // the person's: only under a billing, shipping, customer or user object.
    if (s.target.startsWith('user') || s.target.startsWith('device.locale')) {
      const parent = s.column.includes('.') ? leaf(s.column.slice(0, s.column.lastIndexOf('.'))) : '';
      if (parent !== '' && !PERSON_PARENT.test(words(parent)))
        return { column: s.column, ...own, why: `${s.reason}, but inside ${parent}: kept as a field` };
    }
    if (s.target === 'page.url') {
      const parent = s.column.includes('.') ? s.column.slice(0, s.column.lastIndexOf('.')) : '';
      if (!PAGE_URL.has(words(leaf(s.column))) || !PAGE_PARENTS.has(parent))
        return {
          column: s.column,
          ...own,
          why: 'a URL, but not named as the page’s: kept as a field (a page URL makes it a website event)',
        };
    }
    return {
      column: s.column,
      target: s.target,
      ...(s.field ? { field: s.field } : {}),
      why: s.target === 'event_data' ? `event field: ${s.reason}` : s.reason,
    };
  });
  const eventName = chooseEventName(fields, named);
  const page = columns.some((c) => c.target === 'page.url');
  return {
    columns,
    ...(eventName ? { eventName } : {}),
    eventTime,
    consent,
    actionSource: page
      ? { value: 'website', why: 'a page URL is mapped: it happened on a website' }
      : { value: 'other', why: 'no page URL: it did not happen on a page (a shop system, a backend)' },
  };
}
