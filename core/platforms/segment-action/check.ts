/**
 * The settings check of `segment_action` destinations (docs/catalog-destinations.md, "Checked at
 * settings check"), against the catalogue manifest (catalog.ts), never by loading a destination:
 * the slug exists and can be configured here, the settings (config and secrets) fit the
 * destination's `authentication.fields`, each action exists, has a subscription, and its mapping
 * (the presets under it) gives every required field, with values of the field's type and no
 * unknown field. Each problem names its key: `destinations[3].actions[0].mapping.profile:
 * required by klaviyo trackEvent`. Pure. Kept out of core/settings.ts, which every function
 * loads at cold start: the manifest is large, and only the settings file's readers need it.
 */

import type { Connection, Destination, SegmentActionSetting, Settings } from '../../../schemas/settings.ts';
import type { FieldViolation } from '../../validation.ts';
import {
  type CatalogAction,
  type CatalogEntry,
  type CatalogField,
  type CatalogSetting,
  catalogEntry,
  catalogManifest,
  OAUTH_TOKEN_AS_SECRET,
} from './catalog.ts';
import { environmentRoles } from './environment.ts';
import { compileFql } from './fql.ts';
import {
  OAUTH_CONNECTION,
  OAUTH_CONNECTION_ROLES,
  OAUTH_ROLES,
  oauthDefinition,
  ROLE_OF_CREDENTIAL,
} from './oauth.ts';
import { type ActionPreset, actionSteps, effectiveMapping, SYNC_MODE_KEY } from './presets.ts';
import { ACCESS_TOKEN_ROLE } from './roles.ts';
import { suggestField } from './suggest.ts';

/**
 * Every problem of one `segment_action` destination, each `<key>: <what is wrong>`, keys under
 * `at` (`destinations[3]`; `destination` when checked alone, as the studio does). `connections`
 * are the settings' own, for a destination that names an `oauth2` one; undefined when the caller
 * has none at hand (the studio's catalogue page), and then a named connection is not judged.
 */
export function segmentActionProblems(
  destination: Readonly<Destination>,
  at = 'destination',
  connections?: readonly Readonly<Connection>[],
): string[] {
  const problems: string[] = [];
  const say = (key: string, what: string) => problems.push(`${at}.${key}: ${what}`);
  const slug = destination.destination;
  if (slug === undefined) {
    say('destination', 'is required for segment_action (the destination’s folder, e.g. klaviyo)');
    return problems;
  }
  const entry = catalogEntry(slug);
  if (!entry) {
    const unloadable = catalogManifest().unloadable.find((u) => u.slug === slug);
    say(
      'destination',
      unloadable
        ? `${slug} does not load here: ${unloadable.reason}`
        : `no Segment Action Destination "${slug}" (eventbus destinations list --catalog)`,
    );
    return problems;
  }
  settingsProblems(destination, entry, say);
  if (isOAuth(entry)) oauthProblems(destination, entry, connections, say);
  else if (destination.connection !== undefined)
    say('connection', `${slug} does not authenticate with OAuth: it takes no connection`);
  const presets = runnablePresets(entry);
  const actions = destination.actions;
  if (actions === undefined) {
    // Segment's presets run: each must give its action's required fields (they do, as published).
    if (presets.length === 0)
      say(
        'actions',
        `${slug} has no presets: name at least one action (${entry.actions.map((a) => a.key).join(', ')})`,
      );
    for (const p of presets) {
      const action = entry.actions.find((a) => a.key === p.action) as CatalogAction;
      if (action.transport !== undefined) {
        say('actions', ownTransportProblem(slug, action));
        continue;
      }
      mappingProblems({}, action, `${slug} ${p.action} (preset “${p.name ?? p.action}”)`, p, (_key, what) =>
        say('actions', what),
      );
    }
    return problems;
  }
  actions.forEach((setting, i) => {
    actionProblems(setting, entry, presets, (key, what) => say(`actions[${i}]${key}`, what));
  });
  return problems;
}

/**
 * Why an action that sends over a client of its own is refused (catalog.ts `transport`): its
 * connections would not pass the egress gate, so nothing would hold them to a public https host.
 */
export function ownTransportProblem(slug: string, action: Pick<CatalogAction, 'key' | 'transport'>): string {
  return `${slug} ${action.key} sends over a client of its own (${action.transport}), not through the egress gate every call out passes: not offered here (docs/security.md#actions-with-a-client-of-their-own)`;
}

/** The destination's presets that run (automatic ones, whose action it has): what it does without `actions`. */
export function runnablePresets(entry: CatalogEntry): ActionPreset[] {
  return (entry.presets ?? []).flatMap((p) =>
    p.subscribe !== undefined && entry.actions.some((a) => a.key === p.action)
      ? [{ ...p, subscribe: p.subscribe }]
      : [],
  );
}

/** The problems of every `segment_action` destination of the settings, as settings violations. */
export function segmentActionViolations(settings: Readonly<Settings>): FieldViolation[] {
  const out: FieldViolation[] = [];
  (settings.destinations ?? []).forEach((d, i) => {
    if (d.type !== 'segment_action') return;
    for (const p of segmentActionProblems(d, `destinations[${i}]`, settings.connections ?? [])) {
      const cut = p.indexOf(': ');
      out.push({ field: p.slice(0, cut), description: p.slice(cut + 2) });
    }
  });
  (settings.connections ?? []).forEach((c, i) => {
    for (const p of oauthConnectionProblems(c, `connections[${i}]`)) {
      const cut = p.indexOf(': ');
      out.push({ field: p.slice(0, cut), description: p.slice(cut + 2) });
    }
  });
  return out;
}

type Say = (key: string, what: string) => void;

/** config and secrets against the destination's settings fields. */
function settingsProblems(destination: Readonly<Destination>, entry: CatalogEntry, say: Say): void {
  const slug = entry.slug;
  const config = destination.config ?? {};
  const secrets = destination.secrets ?? {};
  const oauth = isOAuth(entry);
  const fields = new Map(entry.authFields.map((f) => [f.key, f]));
  const known = entry.authFields.map((f) => f.key).join(', ') || 'none';
  for (const [key, value] of Object.entries(config)) {
    const field = fields.get(key);
    if (!field) {
      say(`config.${key}`, `is not a setting of ${slug} (its settings: ${known})`);
      continue;
    }
    if (field.type === 'password')
      say(`config.${key}`, `is a credential of ${slug}: name a secret under secrets.${key} instead`);
    const wrong = settingTypeProblem(field, value);
    if (wrong) say(`config.${key}`, wrong);
  }
  const environment = environmentRoles(slug);
  for (const role of Object.keys(secrets)) {
    if (oauth && (role === ACCESS_TOKEN_ROLE || (Object.values(OAUTH_ROLES) as string[]).includes(role)))
      continue;
    // What Segment keeps in its own environment is a secret of ours (environment.ts).
    if (environment.some((e) => e.role === role)) continue;
    if (!fields.has(role)) say(`secrets.${role}`, `is not a setting of ${slug} (its settings: ${known})`);
    else if (Object.hasOwn(config, role)) say(`secrets.${role}`, `is given in config too: one place only`);
  }
  if (destination.enabled === false) return;
  const given = (key: string) => Object.hasOwn(config, key) || Object.hasOwn(secrets, key);
  for (const field of entry.authFields) {
    if (!field.required || given(field.key)) continue;
    const where = field.type === 'password' ? 'secrets' : 'config';
    say(`${where}.${field.key}`, `is required by ${slug} (${field.label})`);
  }
  for (const e of environment)
    if (e.required && !Object.hasOwn(secrets, e.role))
      say(
        `secrets.${e.role}`,
        `is required by ${slug}: Segment sends it from its own environment with every request, so here it is a secret of the destination's`,
      );
  // What the destination's own connection test refuses (GA4 without a Measurement ID or Firebase App ID).
  for (const rule of entry.settingRules ?? [])
    if (!rule.anyOf.some(given))
      say(`config.${rule.anyOf[0]}`, `${slug} needs one of ${rule.anyOf.join(', ')}: ${rule.message}`);
}

const isOAuth = (entry: CatalogEntry) => entry.auth === 'oauth2' || entry.auth === 'oauth-managed';

/**
 * An OAuth destination's credentials: the three whose tokens do not expire (catalogSupported) may
 * name `secrets.access_token`; every OAuth destination may name an `oauth2` connection, which must
 * exist and name what Segment's refresh function reads (a refresh token, the client), or an access
 * token where the definition has no refresh function. One of the two is required.
 */
function oauthProblems(
  destination: Readonly<Destination>,
  entry: CatalogEntry,
  connections: readonly Readonly<Connection>[] | undefined,
  say: Say,
): void {
  const slug = entry.slug;
  const tokenAsSecret =
    OAUTH_TOKEN_AS_SECRET.has(slug) && destination.secrets?.[ACCESS_TOKEN_ROLE] !== undefined;
  if (destination.secrets?.[ACCESS_TOKEN_ROLE] !== undefined && !OAUTH_TOKEN_AS_SECRET.has(slug))
    say(
      `secrets.${ACCESS_TOKEN_ROLE}`,
      `${slug}'s access tokens expire: name an ${OAUTH_CONNECTION} connection instead (eventbus connect ${slug})`,
    );
  for (const role of Object.values(OAUTH_ROLES))
    if (destination.secrets?.[role] !== undefined)
      say(`secrets.${role}`, `is read from the destination's ${OAUTH_CONNECTION} connection, not named here`);
  const id = destination.connection;
  if (id === undefined) {
    if (!tokenAsSecret && destination.enabled !== false)
      say(
        'connection',
        `is required: ${slug} authenticates with OAuth (${entry.auth}); name an ${OAUTH_CONNECTION} connection holding its client and refresh token (eventbus connect ${slug})${OAUTH_TOKEN_AS_SECRET.has(slug) ? `, or a token that does not expire under secrets.${ACCESS_TOKEN_ROLE}` : ''}`,
      );
    return;
  }
  if (connections === undefined) return;
  const c = connections.find((x) => x.id === id);
  if (!c) {
    const known = connections.filter((x) => x.type === OAUTH_CONNECTION).map((x) => x.id);
    say(
      'connection',
      `no connection "${id}" (${OAUTH_CONNECTION} connections: ${known.join(', ') || 'none'})`,
    );
    return;
  }
  if (c.type !== OAUTH_CONNECTION) {
    say('connection', `"${id}" is a ${c.type} connection, not ${OAUTH_CONNECTION}`);
    return;
  }
  const given = new Set(Object.keys(c.secrets ?? {}));
  const def = oauthDefinition(slug);
  const missing = def?.refresh
    ? def.reads.map((k) => ROLE_OF_CREDENTIAL[k]).filter((r) => !given.has(r))
    : given.has('access_token')
      ? []
      : ['access_token'];
  if (missing.length > 0)
    say(
      'connection',
      def?.refresh
        ? `connection "${id}" lacks ${missing.map((r) => `secrets.${r}`).join(', ')}: ${slug} refreshes its access token with them (Segment's refreshAccessToken)`
        : `connection "${id}" lacks secrets.access_token: ${slug}'s definition has no way to refresh a token, so it sends the one given (a long-lived token)`,
    );
}

/** The problems of an `oauth2` connection itself: the roles it may name. */
export function oauthConnectionProblems(c: Readonly<Connection>, at: string): string[] {
  if (c.type !== OAUTH_CONNECTION) return [];
  const roles = Object.keys(c.secrets ?? {});
  const unknown = roles.filter((r) => !(OAUTH_CONNECTION_ROLES as readonly string[]).includes(r));
  const out = unknown.map(
    (r) =>
      `${at}.secrets.${r}: is not a role of an ${OAUTH_CONNECTION} connection (${OAUTH_CONNECTION_ROLES.join(', ')})`,
  );
  if (c.url !== undefined || c.url_secret !== undefined || c.bucket !== undefined)
    out.push(`${at}: an ${OAUTH_CONNECTION} connection has no url, url_secret or bucket`);
  return out;
}

/** Why a settings value does not fit its field, if it does not. */
function settingTypeProblem(field: CatalogSetting, value: unknown): string | undefined {
  const expected = field.type === 'number' ? 'number' : field.type === 'boolean' ? 'boolean' : 'string';
  if (typeof value !== expected) return `must be a ${expected} (${field.label})`;
  const choices = field.choices;
  if (choices && choices.length > 0 && !choices.some((c) => c.value === value))
    return `must be one of ${choices.map((c) => JSON.stringify(c.value)).join(', ')}`;
  return undefined;
}

/**
 * One action: it exists, it has a subscription Segment's parser reads, its mapping's fields are
 * known, given (under each preset it runs with) and typed.
 */
function actionProblems(
  setting: SegmentActionSetting,
  entry: CatalogEntry,
  presets: readonly ActionPreset[],
  say: Say,
): void {
  const action = entry.actions.find((a) => a.key === setting.action);
  if (!action) {
    say(
      '.action',
      `${entry.slug} has no action "${setting.action}" (its actions: ${entry.actions.map((a) => a.key).join(', ')})`,
    );
    return;
  }
  const name = `${entry.slug} ${action.key}`;
  if (action.transport !== undefined) {
    say('.action', ownTransportProblem(entry.slug, action));
    return;
  }
  const steps = actionSteps([setting], presets, () => action.defaultSubscription);
  if (steps.some((s) => s.subscribe === undefined))
    say('.when', `is required: ${name} has no preset and no default subscription (name the events it takes)`);
  if (typeof setting.when === 'string') {
    const problem = fqlProblem(setting.when);
    if (problem) say('.when', problem);
  }
  const seen = new Set<string>();
  for (const step of steps)
    mappingProblems(setting.mapping ?? {}, action, name, step.preset, (key, what) => {
      if (seen.has(`${key}: ${what}`)) return;
      seen.add(`${key}: ${what}`);
      say(key, what);
    });
}

/** Why Segment's parser would not read a `when` as meant: it refuses it, or `==` (read as `= "="`). */
function fqlProblem(text: string): string | undefined {
  const error = compileFql(text).error;
  if (error !== undefined) return `Segment's subscription parser refuses it: ${error}`;
  if (/==/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""')))
    return 'uses `==`, which Segment reads as `= "="` (it takes no event): write `=`';
  return undefined;
}

function mappingProblems(
  mapping: Readonly<Record<string, unknown>>,
  action: CatalogAction,
  name: string,
  preset: ActionPreset | undefined,
  say: Say,
): void {
  const fields = new Map(action.fields.map((f) => [f.key, f]));
  syncModeProblem(mapping, action, name, say);
  for (const key of Object.keys(mapping))
    if (action.hooks?.includes(key)) hookProblem(mapping[key], key, name, say);
    else if (!fields.has(key) && !(key === SYNC_MODE_KEY && action.syncMode))
      say(
        `.mapping.${key}`,
        `is not a field of ${name} (its fields: ${action.fields.map((f) => f.key).join(', ')})`,
      );
  const effective = effectiveMapping(Object.fromEntries(fields), mapping, preset);
  for (const field of action.fields) {
    const value = effective[field.key];
    if (field.required && !field.conditional && absent(value)) {
      say(`.mapping.${field.key}`, `required by ${name}${suggestionText(field)}`);
      continue;
    }
    if (Object.hasOwn(mapping, field.key) && !absent(value)) {
      const wrong = fieldTypeProblem(field, value);
      if (wrong) say(`.mapping.${field.key}`, `${wrong} for ${name}`);
    }
  }
}

/**
 * A hook's saved result in the mapping (`onMappingSave: {outputs: {id: …}}`), as Segment's app keeps
 * it when the mapping is saved: an object whose `outputs` is an object (and `inputs`, if any, too).
 */
function hookProblem(value: unknown, key: string, name: string, say: Say): void {
  const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  const saved = value as { outputs?: unknown; inputs?: unknown };
  if (!isObject(value) || !isObject(saved.outputs) || (saved.inputs !== undefined && !isObject(saved.inputs)))
    say(
      `.mapping.${key}`,
      `is the result of ${name}'s ${key} hook, as Segment's app saves it: {"outputs": {…}} (and "inputs", an object, if any)`,
    );
}

/** The sync mode a mapping names, for an action that has sync modes: one of them. */
function syncModeProblem(
  mapping: Readonly<Record<string, unknown>>,
  action: CatalogAction,
  name: string,
  say: Say,
): void {
  const modes = action.syncMode?.choices;
  if (modes === undefined || !Object.hasOwn(mapping, SYNC_MODE_KEY)) return;
  const mode = mapping[SYNC_MODE_KEY];
  if (typeof mode !== 'string' || !modes.includes(mode))
    say(
      `.mapping.${SYNC_MODE_KEY}`,
      `must be one of ${modes.map((m) => JSON.stringify(m)).join(', ')} for ${name}`,
    );
}

/** What the suggester proposes for a missing field, as the check's words say it ('' for nothing). */
function suggestionText(field: CatalogField): string {
  const s = suggestField(field);
  return s === undefined ? '' : ` (suggested: ${JSON.stringify(s.value)}, ${s.from})`;
}

function absent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** A mapping-kit directive (`{"@path": …}`, `{"@if": …}`): its value is known only at run time. */
function isDirective(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] ?? '').startsWith('@');
}

/** Why a literal mapping value does not fit the field's type, if it does not (directives are not judged). */
function fieldTypeProblem(field: CatalogField, value: unknown): string | undefined {
  if (isDirective(value)) return undefined;
  if (Array.isArray(value)) {
    if (!field.multiple) return 'must be one value, not a list';
    for (const item of value) {
      const wrong = fieldTypeProblem({ ...field, multiple: false }, item);
      if (wrong) return wrong;
    }
    return undefined;
  }
  switch (field.type) {
    case 'number':
      return typeof value === 'number' ? undefined : 'must be a number';
    case 'integer':
      return Number.isInteger(value) ? undefined : 'must be an integer';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'object':
      return typeof value === 'object' ? undefined : 'must be an object (or a directive)';
    case 'datetime':
    case 'string':
    case 'text':
    case 'password':
      // mapping-kit templates (`{{userId}}`) are strings too; numbers become strings.
      return typeof value === 'string' || typeof value === 'number' ? undefined : 'must be a string';
    default:
      return undefined;
  }
}
