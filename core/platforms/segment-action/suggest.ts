/**
 * Suggested mappings (issue #95; docs/catalog-destinations.md, "Suggested mappings"): for an
 * action's required field that has no default, a source in our canonical event — the Segment
 * event segment-event.ts writes — proposed from the field's key, type, format, description and
 * choices (and for an optional one its description calls one of a required pair); the sync mode
 * Segment's app preselects; and for an action without a subscription of its own, the call it is
 * for, read from its own field defaults. A suggestion is a proposal the user accepts (the studio's catalogue page
 * pre-fills it as an editable mapping entry); a field no rule recognises, or one that names the
 * business's own account, list, sender or endpoint, stays a question only the user can answer.
 * Pure: no I/O, the catalogue's data only.
 */
import type { CatalogAction, CatalogField } from './catalog.ts';
import { type ActionPreset, effectiveMapping, SYNC_MODE_KEY } from './presets.ts';
import { SPEC_EVENT_NAMES } from './segment-event.ts';

/** What the suggester reads of a field (the catalogue's CatalogField). */
export type SuggestableField = Pick<
  CatalogField,
  'key' | 'label' | 'type' | 'required' | 'conditional' | 'multiple' | 'description' | 'choices' | 'format'
>;

/** A proposed mapping entry and, in words, where its value comes from. */
export interface FieldSuggestion {
  readonly value: unknown;
  readonly from: string;
}

/** An action's suggestions: mapping entries, a subscription, and the fields left to the user. */
export interface ActionSuggestions {
  /** By field key: a mapping-kit value (`{"@path": …}`) or a literal choice. */
  readonly mapping: Readonly<Record<string, unknown>>;
  /** Why each entry of `mapping` was proposed, by field key. */
  readonly from: Readonly<Record<string, string>>;
  /** A subscription (Segment's FQL) when the action has none of its own and its defaults tell. */
  readonly when?: string;
  /** Required fields without a default that no rule can fill: values only the user knows. */
  readonly questions: readonly string[];
}

const path = (p: string) => ({ '@path': p });

/** A field's words, lower-cased: its key (split at camelCase and `_`) and label. */
function nameOf(f: SuggestableField): string {
  return `${keyOf(f)} ${f.label.toLowerCase()}`;
}

/** A field's key alone, split at camelCase and `_`, lower-cased (`eventName` → `event name`). */
function keyOf(f: SuggestableField): string {
  return f.key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .toLowerCase();
}

/** Key, label and description, lower-cased. */
function wordsOf(f: SuggestableField): string {
  return `${nameOf(f)} ${f.description ?? ''}`.toLowerCase();
}

/**
 * A field whose value belongs to the business's own set-up, never to the event: who sends (a
 * sender's address or number), where to send (a webhook, an endpoint, a flow, a workflow), or an
 * object of the platform's account (a list, an audience, a template, a topic, a directory, a
 * conversion action or label, a space, an advertiser, an index).
 */
const OWN_SETUP =
  /\b(from|sender|reply to|webhook|endpoint|deliver data to|workflow|flow|template|topic|directory|pool|list|audience|segment|space|advertiser|conversion (action|label|rule)|index|meter|campaign id|account)\b/;

/**
 * A description saying the value is the platform's own: defined or found in the user's account, or
 * one of a list the platform supports (HubSpot's event names "assigned by HubSpot", TikTok's
 * "Supported Web Events"). Whatever its key, our event does not carry it.
 */
const PLATFORMS_OWN =
  /\b(assigned by|predefined|pre-defined|as seen in your|found in your|in your \w+ account|supported \w+ events|standard events)\b/i;

/** A text field (not an enum, one value). */
const isText = (f: SuggestableField) =>
  (f.type === 'string' || f.type === 'text') && f.multiple !== true && f.choices === undefined;

interface Rule {
  readonly test: (f: SuggestableField, name: string, words: string) => boolean;
  readonly value: unknown;
  readonly from: string;
}

/**
 * The rules, first match wins. Each reads only the field's own documentation; its value is the one
 * place our canonical event carries that meaning (docs/catalog-destinations.md, "The Segment event").
 */
const RULES: readonly Rule[] = [
  {
    test: (f, name) =>
      isText(f) &&
      (f.format === 'email' || /^(user )?e ?mail( address)?\b/.test(nameOf(f)) || /\bemail\b/.test(name)),
    value: path('$.context.traits.email'),
    from: "the person's e-mail trait",
  },
  {
    test: (f, name) => isText(f) && /\b(phone|mobile)( number)?\b/.test(name),
    value: path('$.context.traits.phone'),
    from: "the person's phone trait",
  },
  {
    test: (f, name) => isText(f) && /\bcurrency( code)?\b/.test(name),
    value: path('$.properties.currency'),
    from: "the event's currency",
  },
  {
    test: (f, name) => isText(f) && /\b(order|transaction) id\b/.test(name),
    value: path('$.properties.order_id'),
    from: "the order's id",
  },
  {
    test: (f, name) => isText(f) && /\b(message id|event id|dedup(lication)? id|unique id)\b/.test(name),
    value: path('$.messageId'),
    from: "the event's id",
  },
  {
    test: (f) => isText(f) && /^event( name| type)?$/.test(keyOf(f)),
    value: path('$.event'),
    from: 'the event name',
  },
  {
    test: (f, name) => isText(f) && /\banonymous id\b/.test(name),
    value: path('$.anonymousId'),
    from: "the person's anonymous id",
  },
  {
    // The person's id: "user/customer/external id" documented as the person's identifier.
    test: (f, name, words) =>
      isText(f) &&
      /\b(user|customer|external|end user|client user) id\b/.test(name) &&
      /\b(user|customer|person|visitor|contact)\b/.test(words.replace(name, '')),
    value: path('$.userId'),
    from: "the person's user id",
  },
  {
    test: (f, name, words) =>
      isText(f) && /\bgroup id\b/.test(name) && /\b(group|account|company)\b/.test(words),
    value: path('$.groupId'),
    from: "the group call's group id",
  },
  {
    // A URI field documented as the page or site the event happened on (never one to send to).
    test: (f, name, words) =>
      isText(f) &&
      (f.format === 'uri' || /\b(url|uri)\b/.test(name)) &&
      /\b(page|website|web page|site|visited|current)\b/.test(words),
    value: path('$.context.page.url'),
    from: 'the page URL',
  },
  {
    test: (f, name, words) =>
      f.multiple !== true &&
      (f.type === 'datetime' ||
        f.format === 'date-time' ||
        (isText(f) && /\b(timestamp|time|date)\b/.test(name) && /\b(event|occurred|happened)\b/.test(words))),
    value: path('$.timestamp'),
    from: "the event's time",
  },
  {
    test: (f, name) =>
      (f.type === 'number' || f.type === 'integer') && /^(revenue|value|total|amount)\b/.test(name),
    value: path('$.properties.total'),
    from: "the order's total",
  },
  {
    test: (f, name) =>
      f.type === 'object' &&
      /^(traits|user attributes|profile attributes|user traits|attributes)\b/.test(name),
    value: path('$.context.traits'),
    from: "the person's traits",
  },
  {
    test: (f, name) => f.type === 'object' && /^(properties|event properties)\b/.test(name),
    value: path('$.properties'),
    from: "the event's properties",
  },
];

/** The choice an event of a website stands for, when a field of where/which channel offers exactly one. */
function websiteChoice(f: SuggestableField): FieldSuggestion | undefined {
  const web = (f.choices ?? []).filter((c) => /^(website|web)$/i.test(String(c.value)));
  if (web.length !== 1 || f.multiple === true) return undefined;
  if (!/\b(source|channel|where|platform)\b/.test(wordsOf(f))) return undefined;
  return {
    value: (web[0] as { value: string | number }).value,
    from: 'a website event (the one web choice)',
  };
}

/**
 * A source for one field, or undefined when only the user can say (a field of their own set-up,
 * an enum whose choices leave it open, a field no rule recognises).
 */
export function suggestField(f: SuggestableField): FieldSuggestion | undefined {
  if (f.choices !== undefined && f.choices.length > 0) return websiteChoice(f);
  const name = nameOf(f);
  const words = wordsOf(f);
  if (OWN_SETUP.test(name) || PLATFORMS_OWN.test(f.description ?? '')) return undefined;
  const rule = RULES.find((r) => r.test(f, name, words));
  return rule ? { value: rule.value, from: rule.from } : undefined;
}

/** Every `@path` a value (a field's default) reads, deeply. */
function pathsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) pathsOf(v, out);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === '@path' && typeof v === 'string') out.push(v);
      else pathsOf(v, out);
    }
  return out;
}

/** An action's own words (key split at camelCase, and title), lower-cased. */
const actionWords = (a: Pick<CatalogAction, 'key' | 'title'>) =>
  `${a.key.replace(/([a-z0-9])([A-Z])/g, '$1 $2')} ${a.title}`.toLowerCase();

/**
 * The calls an action without a subscription is for, from its own field defaults: more of them
 * read the person's traits (`$.traits`) → identify calls; more read the event's properties or name
 * (`$.properties`, `$.event`) → track calls, narrowed to one catalogue event when the action's key
 * or title names it (Friendbuy's `trackPurchase` → `Order Completed`); neither, as many of each,
 * defaults that read Engage's audience computation (`context.personas`), or a required field read
 * only from a mobile app's context (`context.app`, `context.device`) → none: the user names it.
 */
export function suggestWhen(
  action: Pick<CatalogAction, 'key' | 'title' | 'defaultSubscription' | 'fields'>,
): string | undefined {
  if (action.defaultSubscription !== undefined) return undefined;
  const paths = action.fields.flatMap((f) => pathsOf(f.default));
  if (paths.some((p) => p.startsWith('$.context.personas'))) return undefined;
  // A required field read only from a mobile app's context: the action is for app events, not a site's.
  const appOnly = action.fields.some((f) => {
    const read = f.required ? pathsOf(f.default) : [];
    return read.length > 0 && read.every((p) => /^\$\.context\.(app|device|os|screen)\b/.test(p));
  });
  if (appOnly) return undefined;
  const traits = paths.filter((p) => /^\$\.traits\b/.test(p)).length;
  const track = paths.filter((p) => /^\$\.(properties|event)\b/.test(p)).length;
  if (traits > track) return 'type = "identify"';
  if (track <= traits) return undefined;
  const words = actionWords(action);
  const named = Object.entries(SPEC_EVENT_NAMES).find(([ours]) =>
    new RegExp(`\\b${ours.replace(/_/g, ' ?')}\\b`).test(words),
  );
  return named ? `type = "track" and event = "${named[1]}"` : 'type = "track"';
}

/** A description saying the field, or another named with it, must be given: "A userId or an anonymousId is required". */
const ONE_OF_REQUIRED = /\b\w+ or an? \w+ is required\b/i;

const absent = (v: unknown) => v === undefined || v === null || v === '';

/**
 * What to propose for one action of a destination: for each required field the mapping (over the
 * field defaults and the preset it runs under) leaves without a value, a suggestion or a question;
 * and a subscription when it has neither `when`, a preset, nor its own. Fields required only under
 * conditions are left to the action.
 */
export function suggestAction(
  action: Pick<CatalogAction, 'key' | 'title' | 'defaultSubscription' | 'fields' | 'syncMode'>,
  preset?: ActionPreset,
  mapping: Readonly<Record<string, unknown>> = {},
  hasWhen = false,
): ActionSuggestions {
  const effective = effectiveMapping(
    Object.fromEntries(action.fields.map((f) => [f.key, f])),
    mapping,
    preset,
  );
  const out: Record<string, unknown> = {};
  const from: Record<string, string> = {};
  const questions: string[] = [];
  for (const f of action.fields) {
    if (!absent(effective[f.key])) continue;
    const required = f.required && !f.conditional;
    // An optional field whose own description says one of it and another is required (Segment's
    // `user_id`: "A userId or an anonymousId is required") is filled when a rule knows it.
    if (!required && !ONE_OF_REQUIRED.test(f.description ?? '')) continue;
    const s = suggestField(f);
    if (s === undefined) {
      if (required) questions.push(f.key);
    } else {
      out[f.key] = s.value;
      from[f.key] = s.from;
    }
  }
  // Segment's app preselects an action's default sync mode; without one the action refuses every event.
  const mode = action.syncMode?.default;
  if (mode !== undefined && absent(effective[SYNC_MODE_KEY])) {
    out[SYNC_MODE_KEY] = mode;
    from[SYNC_MODE_KEY] = "the action's default sync mode, as Segment's app preselects it";
  }
  const when = hasWhen || preset !== undefined ? undefined : suggestWhen(action);
  return { mapping: out, from, ...(when === undefined ? {} : { when }), questions };
}
