/**
 * The creator's guesses, each with why (docs/creator-inference.md#guesses): where each column
 * goes (suggest.ts, then corrected with what a whole payload shows), the event's name, which
 * column is the event time, the value, currency and minor units (amounts.ts), which columns read
 * as consent, Meta's action source. A guess is a starting point the page shows and the person
 * changes; none is applied out of sight. Pure.
 */
import { PII_COLUMNS } from '../warehouse/pii-columns.ts';
import { TABLES } from '../warehouse/warehouse.ts';
import { actorQuestions, actorRefusal } from './actor.ts';
import {
  type AmountGuess,
  currencySetting,
  type MinorUnitsOffer,
  mayBeTheValue,
  minorUnitsOffer,
  timeShapedAmount,
  wholeNumbers,
} from './amounts.ts';
import { batchIdQuestion } from './batch-envelope.ts';
import { atEnvelopeTop, deliveryColumns, envelopeEventId } from './delivery.ts';
import { emptyDetailQuestions } from './empty-detail.ts';
import { envelopeIdQuestion } from './envelope-id.ts';
import { chooseEventName, type EventNameGuess } from './event-name.ts';
import { identityEvidence, leafSide, personObjectId } from './evidence.ts';
import { instantOf } from './instant-of.ts';
import { lastChange } from './last-change-time.ts';
import { currencyFollows, lateAmountRules, lateTextAmountRule, valueAsked } from './late-amount-rules.ts';
import { lateIdRules } from './late-id-rules.ts';
import { listCount } from './list-count.ts';
import { envelopeNamedIdQuestion, unnamedEventIdQuestion } from './named-event-id.ts';
import { fieldName, nameWords } from './names.ts';
import { deliveredIdQuestion, namedForAnotherRecord, ownIdQuestion } from './own-id.ts';
import { heldByBusiness, otherParty, partyRole, personalData, unclaimedDetailQuestions } from './party.ts';
import { clientOfPerson, partyIdQuestion } from './party-id.ts';
import { PARTY_TIME_DROP, partyTime } from './party-time.ts';
import { lonePersonIdQuestions, personReferenceQuestion } from './person-id-evidence.ts';
import {
  personRecordEventIdQuestion,
  personRecordIdQuestion,
  personRecordOwnIdQuestion,
} from './person-record.ts';
import { personTypeIdQuestion } from './person-type-id.ts';
import { currencyBeside, priceBesideCurrency, valueBesideCurrency } from './price-value.ts';
import { type Evidence, evidenceOf, type Question, questionsFor } from './questions.ts';
import { recordIdQuestion } from './record-id.ts';
import { requestReference, requestReferenceQuestion } from './request-ref.ts';
import { resourceIdQuestion } from './resource-ref.ts';
import { rivalPartyQuestions } from './rival-parties.ts';
import { directionOf, notARegion, objectTypes, type RoleReading } from './roles.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { standInCurrencyQuestion } from './stand-in-currency.ts';
import { reportedSteps, stepTimeOf } from './step-time.ts';
import { subjectIdQuestion, subjectPersonIdQuestion } from './subject-id.ts';
import { dataFieldName, type MappingSuggestion, type SuggestColumn, suggestMappings } from './suggest.ts';
import { transactionCountryQuestion } from './transaction-country.ts';
import { actorAbove, thinEvidenceQuestions } from './two-evidence.ts';
import { unplacedEmailQuestion } from './unplaced-email.ts';
import { messageNumbersQuestion, unplacedPhoneQuestion, whatsappIdQuestion } from './unplaced-phone.ts';
import { notWhenItHappened } from './when-happened.ts';

export { eventNameGuess } from './event-name.ts';
export type { Evidence, Question } from './questions.ts';

/** What the event time must fall in to be accepted (the gateway's window, core/event.ts). */
export interface TimeWindow {
  readonly now: number;
  readonly pastMs: number;
  readonly futureMs: number;
}

/** One column's guess: where it goes, why, on what evidence, and how sure. */
export interface ColumnGuess extends RuleGuess {
  /** 0–1: a name match confirmed by the values is 0.9 and above; an own event field 0.5. */
  readonly confidence: number;
  /** What the guess rests on: the name, the type, the values' shape, the position in the payload. */
  readonly evidence: Evidence;
  /** The person's e-mail, phone or name: personal data (the context's own are hashed per the settings). */
  readonly personal?: true;
}

/**
 * The column that would be the event time, but whose values fall outside the gateway's window:
 * a question the person must answer before saving (`blocking: true`), never answered for them
 * with the arrival time. The column stays an event field (its `ColumnGuess` says so) until the
 * person chooses: the time of arrival as the event time, or another column. Field names are
 * stable: the studio's page renders them.
 */
export interface OutsideWindow {
  /** The sample column (a dotted path for JSON). */
  readonly column: string;
  /** Up to three of its values that fall outside, as the sample writes them. */
  readonly values: readonly unknown[];
  /** How many of the sample's rows have a value outside, and how many have one at all. */
  readonly outside: number;
  readonly read: number;
  /** The window's bounds, as RFC 3339 times. */
  readonly from: string;
  readonly to: string;
  readonly blocking: true;
}

export interface Guesses {
  readonly columns: ColumnGuess[];
  /** The event's name, when a column names it (`type`: `checkout.session.completed`). */
  readonly eventName?: EventNameGuess;
  /**
   * Why the event time is the column chosen, or the time of arrival (no column holds times);
   * `outside`: a blocking question (see `OutsideWindow`), and then no `column`.
   */
  readonly eventTime: { readonly column?: string; readonly outside?: OutsideWindow; readonly why: string };
  /**
   * The column kept as the event's `value` (an order's total; never a discount, refund, tax or
   * shipping amount): `field` is the event field it becomes, for the value choice (PlatformChoice).
   */
  readonly value?: AmountGuess;
  /**
   * The column of currency codes beside the value (`field`: for PlatformChoice's
   * `currency: { field }`); absent when the payload has none, and the page asks for a code.
   */
  readonly currency?: AmountGuess;
  /**
   * Offered, never applied: the value is in minor units (cents). Taking it sets the value
   * column's `ColumnChoice.majorUnits` to `majorUnits` (draft.ts writes the `major_units` step).
   */
  readonly minorUnits?: MinorUnitsOffer;
  /** Columns whose names and yes/no values read as consent: offered per purpose, never applied. */
  readonly consent: readonly { readonly column: string; readonly why: string }[];
  /** Meta's action_source, from what the sender is: `website` only with a page URL and a browser. */
  readonly actionSource: { readonly value: string; readonly why: string };
  /**
   * Where two readings compete (payer or payee, `From` or `To`, the total or a fee): the page asks,
   * the first option preselected as the columns' guesses already say; never blocking.
   */
  readonly questions: readonly Question[];
}

const words = (column: string) => nameWords(column).join('');
const leaf = (column: string) => column.slice(column.lastIndexOf('.') + 1);
const depth = (column: string) => column.split('.').length - 1;

/**
 * Names a page's URL has (`page` holding URLs: GetSiteControl's); `cancel_url`, `avatar_url` or an
 * API's `url` inside an object are not one.
 */
const PAGE_URL = new Set([
  'url',
  'page',
  'pageurl',
  'pagelocation',
  'landingpage',
  'pagelink',
  'href',
  'currenturl',
]);
const PAGE_PARENTS = new Set(['', 'page', 'context.page', 'properties', 'context']);

/** Event time names, strongest first: when it happened, when it was created, some date; lifecycle dates last. */
const TIME_RANKS: readonly [RegExp, number, string][] = [
  [
    /^(occurred|happened|current|eventtime|eventtimestamp|eventdate|timestamp|ts|time|datetime)/,
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

/** Whether a URL column is the page's: named as one, at the top, under `page` or `context`. */
function pageColumn(column: string): boolean {
  const parent = column.includes('.') ? column.slice(0, column.lastIndexOf('.')) : '';
  return PAGE_URL.has(words(leaf(column))) && PAGE_PARENTS.has(parent);
}

/** Why a column may not take a target, or undefined. */
type Refusal = (column: string, target: string) => string | undefined;

/**
 * The targets guess.ts refuses a column, before suggest.ts gives them out: a person's details
 * (`user.*`, `device.locale`) from a column that is not the person's (roles.ts: Twilio's `To`,
 * PayPal's `payee`, an issue's `user`), a region from a `state` that is a status or stands beside
 * no place, the page's URL from a URL that is not named as the page's.
 */
function refusals(fields: readonly InferredField[], rows: readonly Record<string, unknown>[]): Refusal {
  const typeOf = objectTypes(fields);
  const direction = directionOf(fields);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const columns = fields.map((f) => f.name);
  const acting = actorRefusal(fields);
  const held = heldByBusiness(fields);
  return (column, target) => {
    const f = byName.get(column);
    if (target.startsWith('user') || target === 'device.locale') {
      const above = actorAbove(column) ?? acting(column) ?? held(column) ?? otherParty(column);
      if (above) return above;
      const r = partyRole(column, typeOf, direction);
      const side = leafSide(column);
      // The field's own name says whose it is (`hidden.user_id`, `metadata.user_id`) over an
      // object that is merely some other thing's; never over the business's object.
      const named = side?.side === 'person' && r.role === 'other';
      if (r.role !== 'person' && !named) return r.why;
      if (side?.side === 'business')
        return `"${side.word}" in its name: the business's side, not the person's`;
      const weak = f ? identityEvidence(target, f, r) : undefined;
      if (weak) return weak;
      return target === 'user.region' && f ? notARegion(column, f, columns) : undefined;
    }
    // An amount is a number that is not a time (FastSpring's `changedValue` in epoch milliseconds),
    // nor the count of a list beside it (list-count.ts).
    if (target === 'value' && f) return timeShapedAmount(f, rows) ?? listCount(fields, rows, column);
    // A currency is told by its codes, not by its name alone ("Credit Card" under `payment_currency`).
    if (target === 'currency' && f && f.format !== 'currency') return 'its values are not currency codes';
    if (target === 'page.url' && !pageColumn(column)) return 'not named as the page’s';
    if (target === 'event_id') return namedForAnotherRecord(fields, column);
    if (target === 'anonymous_id') return clientOfPerson(fields, column);
    return undefined;
  };
}
const CONSENT_NAME = /consent|optin|opt_in|accepts?marketing|marketing|newsletter|gdpr|tracking|cookies?/;

/** The column's values outside the window (undefined: none falls outside, or none could be read). */
function outside(
  column: string,
  f: InferredField,
  rows: readonly Record<string, unknown>[],
  w: TimeWindow,
): OutsideWindow | undefined {
  let read = 0;
  let out = 0;
  const values: unknown[] = [];
  for (const row of rows) {
    const t = instantOf(row[column], f);
    if (t === undefined) continue;
    read++;
    if (t >= w.now - w.pastMs && t <= w.now + w.futureMs) continue;
    out++;
    if (values.length < 3 && !values.includes(row[column])) values.push(row[column]);
  }
  if (out === 0) return undefined;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    column,
    values,
    outside: out,
    read,
    from: iso(w.now - w.pastMs),
    to: iso(w.now + w.futureMs),
    blocking: true,
  };
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
  const times = fields.filter((f) => isTime(f) && f.distinct > 0);
  const notWhen = times.map((f) => notWhenItHappened(f, rows)).filter((w) => w !== undefined);
  // A time named for the step the payload reports (`paid_at` when its status says paid) is when
  // it happened, over the record's creation (step-time.ts).
  const steps = reportedSteps(fields, rows);
  // When the vendor sent this delivery (delivery.ts) changes on a retry: any other time first.
  const sent = new Map(
    deliveryColumns(fields).flatMap((d) => (d.kind === 'delivery_time' ? [[d.column, d.why]] : [])),
  );
  const ranked = times
    .filter((f) => notWhenItHappened(f, rows) === undefined)
    .map((f) => {
      const step = stepTimeOf(f, steps);
      const mark = { rank: 9 - depth(f.name) * 0.5, why: `names the step the payload reports (${step})` };
      const delivery = sent.get(f.name);
      if (delivery) return { f, rank: -10, why: `holds times, but ${delivery.slice(f.name.length + 1)}` };
      const party = step ? undefined : partyTime(f.name);
      if (party) return { f, rank: timeRank(f).rank - PARTY_TIME_DROP, why: `holds times, but ${party}` };
      return { f, ...(step ? mark : timeRank(f)) };
    })
    .sort((a, b) => b.rank - a.rank);
  // A record's creation time gives way to its later update time (last-change-time.ts).
  const best = lastChange(ranked[0], fields, rows);
  const not = notWhen.length > 0 ? `; ${notWhen.join('; ')}` : '';
  if (!best) return { why: `no column holds when it happened: the event time is when it arrives${not}` };
  const others =
    ranked.length > 1
      ? ` (over ${ranked
          .slice(1, 3)
          .map((r) => r.f.name)
          .join(', ')})`
      : '';
  const out = window ? outside(best.f.name, best.f, rows, window) : undefined;
  if (out) {
    const days = Math.round((window as TimeWindow).pastMs / 86_400_000);
    const share =
      out.outside === out.read ? 'the sample’s times are' : `${out.outside} of its ${out.read} values are`;
    return {
      outside: out,
      why: `${best.f.name} ${best.why}, but ${share} outside the accepted window (${days} days back to now, ${String(out.values[0])}): the gateway would refuse every such row. Choose: the time each row arrives as the event time, or another column; until then ${best.f.name} is kept as a field`,
    };
  }
  return { column: best.f.name, why: `${best.f.name} ${best.why}${others}${not}` };
}

/** The guesses for a sample's inferred fields (and its rows, for the event time's window). */
export function guessChoices(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  options: { readonly window?: TimeWindow } = {},
): Guesses {
  const asColumn = (f: InferredField): SuggestColumn => ({
    name: f.name,
    type: f.type,
    ...(f.format ? { format: f.format } : {}),
    ...(f.distinct === 0 ? { empty: true } : {}),
  });
  // Refused targets are refused before they are given out: an issue's `user.email` cannot keep
  // the person's e-mail from `billing.email`, nor an always-null `phone` from `billing_address.phone`.
  const refuse = refusals(fields, rows);
  const typeOf = objectTypes(fields);
  const suggestions = suggestMappings(fields.map(asColumn), { refuse: (c, t) => refuse(c, t) !== undefined });
  const eventTime = chooseEventTime(fields, rows, options.window);
  const delivered = new Map(deliveryColumns(fields).map((d) => [d.column, d.why]));
  const named: string[] = [];
  const consent: { column: string; why: string }[] = [];
  const base = suggestions.map((s, i): Omit<ColumnGuess, 'confidence' | 'evidence'> => {
    const f = fields[i] as InferredField;
    const own = { target: 'event_data', field: s.field ?? dataFieldName(s.column) };
    if (f.distinct === 0)
      return {
        column: s.column,
        target: 'skip',
        why: 'always empty in the sample (null or ""): left out, as nothing shows its type',
      };
    if (s.column === eventTime.column)
      return { column: s.column, target: 'event_time', why: `the event time: ${eventTime.why}` };
    if (s.column === eventTime.outside?.column)
      return {
        column: s.column,
        ...own,
        why: 'would be the event time, but its times are outside the accepted window: a question above',
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
    // A column named `value` keeps its own name, but values that are times never make it the value.
    const time = own.field === 'value' ? timeShapedAmount(f, rows) : undefined;
    if (time)
      return {
        column: s.column,
        ...own,
        why: `event field under its own name, but ${time}: not the event's value`,
      };
    if (s.target === 'event_data' && s.field !== undefined) {
      const alone = refusedWhy(asColumn(f), refuse);
      if (alone) return { column: s.column, ...own, why: alone };
    }
    // A message id beside the envelope's attempt counter names the delivery (delivery.ts); a
    // caller's request reference (`idempotency_key`, wherever it sits) the request (request-ref.ts);
    // an id named like an event's inside another object (a message's `headers.message-id`) is
    // that object's, not the event's: position is evidence.
    const delivery =
      s.target === 'event_id' ? (delivered.get(s.column) ?? requestReference(s.column)) : undefined;
    if (delivery)
      return { column: s.column, ...own, why: `named like an event id, but ${delivery}; kept as a field` };
    if (s.target === 'event_id' && !atEnvelopeTop(s.column))
      return {
        column: s.column,
        ...own,
        why: `named like an event id, but inside ${s.column.slice(0, s.column.lastIndexOf('.'))}: that object's id, not the event's; kept as a field`,
      };
    return {
      column: s.column,
      target: s.target,
      ...(s.field ? { field: s.field } : {}),
      why: s.target === 'event_data' ? `event field: ${s.reason}` : s.reason,
    };
  });
  const actorAsks = actorQuestions(fields, base);
  const byEvidence = envelopeIdGuess(fields, rows, base);
  const idQuestion = ownIdQuestion(fields, rows, base);
  const envelopeAsk = idQuestion
    ? undefined
    : (envelopeIdQuestion(fields, rows, base) ?? subjectIdQuestion(fields, rows, base));
  // Asked of a record's body that names no event: no other record's id is then preselected.
  const unnamedAsk = idQuestion || envelopeAsk ? undefined : unnamedEventIdQuestion(fields, rows, base);
  const direction = directionOf(fields);
  const roles = fields.map((f) => partyRole(f.name, typeOf, direction));
  personIdFromObject(fields, base, typeOf);
  const recordQuestion = personRecordIdQuestion(fields, rows, base);
  const alone = fields.map((f) => suggestMappings([asColumn(f)])[0]?.target ?? 'event_data');
  const asQuestions = base.map((g, i) => ({
    field: fields[i] as InferredField,
    target: g.target,
    ...(g.field ? { guessed: g.field } : {}),
    role: roles[i] as RoleReading,
    alone: alone[i] as string,
  }));
  const questions = questionsFor(asQuestions);
  if (idQuestion) questions.push(idQuestion);
  const topIdAsk = envelopeAsk ?? unnamedAsk;
  if (topIdAsk) questions.push(topIdAsk);
  if (recordQuestion) questions.push(recordQuestion);
  const batchQuestion = idQuestion ? undefined : batchIdQuestion(fields, base);
  if (batchQuestion) questions.push(batchQuestion);
  const deliveredQuestion = idQuestion || batchQuestion ? undefined : deliveredIdQuestion(fields, base);
  if (deliveredQuestion) questions.push(deliveredQuestion);
  const referenceQuestion = requestReferenceQuestion(fields, rows, base);
  if (referenceQuestion) questions.push(referenceQuestion);
  const recordIdAsk = unnamedAsk
    ? undefined
    : (recordIdQuestion(base, fields, rows) ?? resourceIdQuestion(base, fields, rows, questions));
  if (recordIdAsk) questions.push(recordIdAsk);
  const namedIdAsk = envelopeNamedIdQuestion(fields, rows, base, questions);
  if (namedIdAsk) questions.push(namedIdAsk);
  questions.push(...actorAsks);
  // The columns the questions so far offer: each later rule leaves them alone.
  const offered = () => new Set(questions.flatMap((q) => q.options.map((o) => o.column)));
  questions.push(...thinEvidenceQuestions(asQuestions, offered()));
  questions.push(...lonePersonIdQuestions(asQuestions, offered()));
  questions.push(...unclaimedDetailQuestions(asQuestions, offered()));
  questions.push(...rivalPartyQuestions(fields, base, offered()));
  const partyIdAsk =
    partyIdQuestion(base, fields, rows, questions) ??
    personRecordOwnIdQuestion(base, fields, questions) ??
    subjectPersonIdQuestion(base, fields, rows, questions) ??
    personTypeIdQuestion(base, fields, questions);
  if (partyIdAsk) questions.push(partyIdAsk);
  const recordEventAsk = personRecordEventIdQuestion(base, fields, questions);
  if (recordEventAsk) questions.push(recordEventAsk);
  const emailAsk = unplacedEmailQuestion(base, fields, questions);
  if (emailAsk) questions.push(emailAsk);
  const phoneAsk =
    unplacedPhoneQuestion(base, fields, questions) ??
    messageNumbersQuestion(base, fields, questions) ??
    whatsappIdQuestion(base, fields, questions);
  if (phoneAsk) questions.push(phoneAsk);
  questions.push(...emptyDetailQuestions(base, fields, questions));
  const rivals = amountRivals(fields, rows, base, suggestions);
  if (rivals) questions.push(valueBesideCurrency(fields, base, rivals, dataFieldName));
  transactionCountryQuestion(fields, base, questions);
  personReferenceQuestion(base, questions);
  lateIdRules(fields, rows, base, questions);
  lateAmountRules(fields, rows, base, questions);
  const asked = new Set(questions.flatMap((q) => q.options.map((o) => o.column)));
  const columns = base.map((g, i): ColumnGuess => {
    const f = fields[i] as InferredField;
    const s = suggestions[i] as MappingSuggestion;
    const sure =
      g.target === 'skip' ? 1 : g.target === 'event_time' || g.column === byEvidence ? 0.8 : s.confidence;
    return {
      ...g,
      confidence: shownConfidence(sure, asked.has(g.column)),
      // Whose a column is matters for a person's details, and for those a role kept from one.
      evidence: evidenceOf(
        f,
        s.reason,
        g.target.startsWith('user') || refuse(g.column, alone[i] as string)
          ? (roles[i] as RoleReading).why
          : '',
      ),
      ...(PERSONAL.has(g.target) || (g.target !== 'skip' && personalData(f, roles[i] as RoleReading))
        ? { personal: true as const }
        : {}),
    };
  });
  const eventName = chooseEventName(fields, named);
  textAmount(fields, rows, columns, questions);
  lateTextAmountRule(fields, columns, questions);
  priceBesideCurrency(fields, rows, columns, questions);
  const value = amountGuess(columns, 'value', keptAsValue(fields, rows));
  if (value) currencyBesideValue(fields, rows, columns, value.column);
  if (value) moneyWithoutCurrency(fields, columns, questions, value.column);
  // A currency says what the value is in: without a value, no column is the event's currency.
  const currency = currencyFollows(columns, questions, value, amountGuess(columns, 'currency'), fields);
  const minorUnits = minorUnitsOffer(fields, value, currency, rows);
  const currencyAsk = value && !currency ? standInCurrencyQuestion(fields) : undefined;
  if (currencyAsk) questions.push(currencyAsk);
  return {
    columns,
    ...(eventName ? { eventName } : {}),
    eventTime,
    ...(value ? { value } : {}),
    ...(currency ? { currency } : {}),
    ...(minorUnits ? { minorUnits } : {}),
    consent,
    actionSource: actionSource(columns),
    questions,
  };
}

/**
 * With no column named as the event's id, the vendor's own id at the top of the envelope takes
 * it when the evidence says so (delivery.ts, `envelopeEventId`: its position, an id's name and
 * shape, one value per row); the column it takes, if any. Only a column kept as an event field.
 */
function envelopeIdGuess(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Omit<ColumnGuess, 'confidence' | 'evidence'>[],
): string | undefined {
  if (base.some((g) => g.target === 'event_id')) return undefined;
  const column = envelopeEventId(rows, fields);
  const i = base.findIndex((g) => g.column === column && g.target === 'event_data');
  if (column === undefined || i < 0) return undefined;
  base[i] = {
    column,
    target: 'event_id',
    why: `the vendor's own id for the event: at the top of the payload, named as an id, one value per row${rows.length > 1 ? ', no two alike' : ''}`,
  };
  return column;
}

/**
 * The confidences the page shows, each right at least that often on the creator's labelled
 * corpus (test/unit/creator-corpus.test.ts checks it, with at least 20 guesses at each level):
 * a name match its values confirm, a weaker match, and a column kept by its own name or asked
 * about. No other level is shown.
 */
export const CONFIDENCE_LEVELS = [0.9, 0.7, 0.5] as const;

/** A guess's confidence as the page shows it: its match's strength snapped to a level; a question's guess is no certainty. */
function shownConfidence(raw: number, asked: boolean): number {
  if (asked) return 0.5;
  if (raw >= 0.85) return 0.9;
  return raw >= 0.6 ? 0.7 : 0.5;
}

/** Context targets that are a person's details: the columns the warehouse keeps as personal data. */
const PERSONAL: ReadonlySet<string> = new Set(PII_COLUMNS[TABLES.events]);

/**
 * When no number column is the value, an amount whose digits are written as text (Paddle's
 * `data.details.totals.total: "65215"`, in minor units) is: named like a total, not a
 * discount, tax or fee. Its guess is rewritten in place, saying so.
 */
function textAmount(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  columns: ColumnGuess[],
  questions: readonly Question[],
): void {
  if (valueAsked(questions) || columns.some(keptAsValue(fields, rows))) return;
  // Digits written as text are an amount only beside a currency in the same object: a survey's
  // score ("9" under `response.value`) is digits too.
  const text = fields.filter(
    (f) =>
      f.type === 'string' &&
      mayBeTheValue(f, rows) &&
      wholeNumbers(f, rows) &&
      currencyBeside(fields, f.name) >= 0,
  );
  const best = suggestMappings(text.map((f) => ({ name: f.name, type: 'integer' }))).find(
    (s) => s.field === 'value',
  );
  const i = best ? columns.findIndex((c) => c.column === best.column) : -1;
  const was = columns[i];
  if (!best || !was || was.target !== 'event_data') return;
  columns[i] = {
    ...was,
    field: 'value',
    why: `event field: ${best.reason}, its digits written as text (an amount, not an id)`,
    confidence: shownConfidence(best.confidence, false),
    evidence: { ...was.evidence, name: best.reason },
  };
}

/**
 * A value whose payload holds no currency code anywhere (a CRM lead's `Annual_Revenue`, a
 * booking's `amountPaid`) has only its name and its number to say it is the event's money: the
 * page asks, the guess preselected, rather than sending it to every platform as the sale's value.
 */
function moneyWithoutCurrency(
  fields: readonly InferredField[],
  columns: ColumnGuess[],
  questions: Question[],
  column: string,
): void {
  if (fields.some((f) => f.format === 'currency')) return;
  if (questions.some((q) => q.options.some((o) => o.column === column))) return;
  questions.push({
    target: 'event_data',
    field: 'value',
    ask: `Is ${column} the event's value? It is a number named like an amount, but no currency stands anywhere in the payload.`,
    options: [{ column, why: 'named like an amount; no currency code beside it or elsewhere' }],
  });
  const i = columns.findIndex((c) => c.column === column);
  const was = columns[i];
  if (was) columns[i] = { ...was, confidence: shownConfidence(was.confidence, true) };
}

/**
 * Which amount is the value, when the name is the only evidence between several: the value was
 * taken from a name that only partly names one (`amount_paid`), while other amounts of other
 * sums are named alike (`amount_due`). The page asks, the guess preselected. Amounts that hold the
 * value's own numbers in every row (a money object's copy) are no rival; an exact name (`total`,
 * `amount`) settles it without a question.
 */
function amountRivals(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: readonly Omit<ColumnGuess, 'confidence' | 'evidence'>[],
  suggestions: readonly MappingSuggestion[],
): Question | undefined {
  const at = base.findIndex((g) => g.target === 'event_data' && g.field === 'value');
  const chosen = suggestions[at];
  if (at < 0 || !chosen || chosen.confidence >= 0.85) return undefined;
  const column = (fields[at] as InferredField).name;
  const same = (c: string) => rows.every((r) => String(r[c]) === String(r[column]));
  const rivals = fields.filter((f, i) => {
    if (i === at || f.distinct === 0 || same(f.name) || !mayBeTheValue(f, rows)) return false;
    const [alone] = suggestMappings([{ name: f.name, type: f.type }]);
    return alone?.field === 'value' && alone.confidence >= 0.5;
  });
  if (rivals.length === 0) return undefined;
  return {
    target: 'event_data',
    field: 'value',
    ask: 'Which amount is the event’s value? Several are named like one.',
    options: [
      { column, why: `the guess: ${chosen.reason}` },
      ...rivals.map((f) => ({ column: f.name, why: 'also named like an amount' })),
    ],
  };
}

/**
 * When no column is named as the person's id, the id of the person's own object is
 * (`sender.contact.id`: evidence.ts `personObjectId`); its guess is rewritten in place, saying so.
 */
function personIdFromObject(
  fields: readonly InferredField[],
  base: Omit<ColumnGuess, 'confidence' | 'evidence'>[],
  typeOf: (path: string) => unknown,
): void {
  if (base.some((g) => g.target === 'user_id' || g.target === 'user.external_id')) return;
  const direction = directionOf(fields);
  const held = heldByBusiness(fields);
  // Under the business's side or an actor on a record (`ticket.owner.user.id`), never the person's.
  const role = (c: string): RoleReading => {
    const above = actorAbove(c) ?? held(c);
    return above ? { role: 'business', why: above } : partyRole(c, typeOf, direction);
  };
  const column = personObjectId(fields, role);
  const i = base.findIndex((g) => g.column === column);
  const was = base[i];
  // `client.id` glues into GA's `clientid`, a browser's id; the plain id of a person's object is theirs.
  if (!column || !was || (was.target !== 'event_data' && was.target !== 'anonymous_id')) return;
  const owner = column.slice(0, column.lastIndexOf('.'));
  base[i] = { column, target: 'user.external_id', why: `the id of ${owner}: the person’s own object` };
}

/**
 * The value's own currency over another's: when the value sits in a money object beside a column
 * of currency codes (`amounts.total.value` beside `amounts.total.currency`) and the currency went
 * to another object's column holding other codes (a shop's currency beside the buyer's), the two
 * swap their guesses. A currency named as a setting (amounts.ts `currencySetting`) is no
 * amount's, wherever it sits: it is kept under its own name, and the page asks for the value's
 * currency.
 */
function currencyBesideValue(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  columns: ColumnGuess[],
  value: string,
): void {
  const taken = columns.findIndex((c) => c.target === 'event_data' && c.field === 'currency');
  const beside = currencyBeside(fields, value);
  const from = columns[taken];
  const to = columns[beside];
  const setting = from ? currencySetting(from.column) : undefined;
  if (from && setting) {
    columns[taken] = { ...from, field: dataFieldName(from.column), why: `event field: ${setting}` };
    if (to && beside !== taken && to.target === 'event_data')
      columns[beside] = {
        ...to,
        field: 'currency',
        why: `event field: the currency beside the value ${value}; ${from.column} is a setting`,
      };
    return;
  }
  if (!from || !to || taken === beside || to.target !== 'event_data') return;
  // The same codes in every row: either is the value's currency, the payload's own stays.
  if (rows.every((r) => String(r[from.column]).toUpperCase() === String(r[to.column]).toUpperCase())) return;
  columns[beside] = { ...to, field: 'currency', why: `${from.why}; the currency beside the value ${value}` };
  // The other is left over, kept under its own name as any column is (suggest.ts), not the name
  // the currency beside the value had.
  columns[taken] = {
    ...from,
    field: dataFieldName(from.column),
    why: `event field: currency went to ${to.column}, the currency beside the value ${value}`,
  };
}

/**
 * Whether a guess keeps its column as the `value` field and its values are no times: a column named
 * `value` of epoch seconds keeps its name, never the event's value (amounts.ts `timeShapedAmount`).
 */
function keptAsValue(fields: readonly InferredField[], rows: readonly Record<string, unknown>[]) {
  return (c: ColumnGuess): boolean => {
    const f = fields.find((x) => x.name === c.column);
    return c.field === 'value' && f !== undefined && timeShapedAmount(f, rows) === undefined;
  };
}

/** The column kept as a catalogue data field (`value`, `currency`), with why; `fits` says which may be. */
function amountGuess(
  columns: readonly ColumnGuess[],
  field: 'value' | 'currency',
  fits: (c: ColumnGuess) => boolean = () => true,
): AmountGuess | undefined {
  const c = columns.find((x) => x.target === 'event_data' && x.field === field && fits(x));
  return c ? { column: c.column, field, why: c.why } : undefined;
}

/**
 * Meta's action_source from what the sender is. A website event needs the browser's user agent
 * (Meta's Conversions API "Parameters" page: website events require `client_user_agent`,
 * `action_source` and `event_source_url`; other events only `action_source`), so `website` only
 * when the payload carries a page URL and a user agent. A server's webhook (an order system, a
 * form tool posting for the page) is `other`, Meta's value for a conversion "in a way that is
 * not listed": `system_generated` is for what happens by itself (a renewal), not a person's act.
 */
function actionSource(columns: readonly ColumnGuess[]): Guesses['actionSource'] {
  const page = columns.some((c) => c.target === 'page.url');
  const browser = columns.some((c) => c.target === 'device.user_agent');
  if (page && browser)
    return {
      value: 'website',
      why: 'a page URL and the browser’s user agent are mapped: it happened on a website',
    };
  if (page)
    return {
      value: 'other',
      why: 'a page URL is mapped, but no browser’s user agent: a server sends it (Meta refuses a website event without one)',
    };
  return { value: 'other', why: 'no page URL: it did not happen on a page (a shop system, a backend)' };
}

/** Why a column keeps no target it would take alone, when guess.ts refused it; else undefined. */
function refusedWhy(column: SuggestColumn, refuse: Refusal): string | undefined {
  const [alone] = suggestMappings([column]);
  // A catalogue field refused (a `value` whose values are times) says so as a context target does.
  const target = alone?.target === 'event_data' ? alone.field : alone?.target;
  const why =
    alone && target && target !== dataFieldName(column.name) ? refuse(column.name, target) : undefined;
  if (!alone || !why) return undefined;
  if (alone.target === 'page.url')
    return 'a URL, but not named as the page’s: kept as a field (a page URL makes it a website event)';
  return `${alone.reason} (${target}), but ${why}: kept as a field`;
}
