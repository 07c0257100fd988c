/**
 * The catalogue of Segment Action Destinations on the admin API (docs/studio.md#catalogue), read
 * only, from the manifest generated at build time (core/platforms/segment-action/catalog.ts):
 * - `catalog` `{}`: every destination, short (slug, name, category, auth kind, whether it can be
 *   configured, its actions' keys and titles, the text search looks in), the package version,
 *   the folders that do not load.
 * - `catalog-entry` `{slug}`: one destination whole: its settings fields and each action's
 *   fields, for the page's form; for an OAuth one that takes an access token as a secret, the
 *   token's role.
 * - `catalog-preview` `{destination, event}`: the requests the action(s) of a `segment_action`
 *   destination (as its settings YAML holds it) build for one stored event, through the runtime
 *   with a fetch that records each request and answers 200 (the dry run the debugger and
 *   `eventbus preview` share, adapters/segment-actions/preview.ts): nothing leaves the
 *   studio. Secrets are never asked for: each role is given a stand-in value `secret:<role>`,
 *   which the requests show where the credential goes. Without the runtime's packages installed
 *   beside the studio, NOT_CONFIGURED says so.
 */
import { previewActions } from '../adapters/segment-actions/load-preview.ts';
import type { StoredEvent } from '../core/event.ts';
import { isOAuth } from '../core/platforms/segment-action/auth-kind.ts';
import type { CatalogEntry } from '../core/platforms/segment-action/catalog.ts';
import { undelivered } from '../core/platforms/segment-action/deliverable.ts';
import { ACCESS_TOKEN_ROLE } from '../core/platforms/segment-action/roles.ts';
import { fail, ok, type Step } from '../core/step.ts';
import { interpretedValidator } from '../core/validation.ts';
import { Destination } from '../schemas/settings.ts';
import { invalidField, notConfigured } from './request.ts';

export const CATALOG_ACTIONS: Readonly<Record<string, 'read'>> = Object.freeze({
  catalog: 'read',
  'catalog-entry': 'read',
  'catalog-preview': 'read',
});

const destinationValidator = interpretedValidator<Destination>(Destination);

/** The manifest (catalog.json, 1.7 MB) loads on the first catalogue call, not with the studio. */
type Catalogue = typeof import('../core/platforms/segment-action/catalog.ts');
const catalogue = (): Promise<Catalogue> => import('../core/platforms/segment-action/catalog.ts');

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export async function catalogAction(action: string, raw: unknown): Promise<Step<unknown>> {
  const body = record(raw);
  const c = await catalogue();
  switch (action) {
    case 'catalog':
      return ok(catalogIndex(c));
    case 'catalog-entry': {
      const entry = entryOf(c, body['slug'], 'slug');
      if (!entry.ok) return entry;
      const supported = c.catalogSupported(entry.value);
      const oauth = isOAuth(entry.value.auth);
      // HubSpot, Attio, Intercom: a token as a secret; every other OAuth one: an oauth2 connection.
      const tokenAsSecret = oauth && c.OAUTH_TOKEN_AS_SECRET.has(entry.value.slug);
      // Verified is not delivered: what the project's own run of the catalogue found (deliverable.ts).
      const none = undelivered(entry.value.slug);
      return ok({
        ...entry.value,
        supported,
        ...(tokenAsSecret ? { tokenRole: ACCESS_TOKEN_ROLE } : oauth ? { connection: true } : {}),
        ...(none === undefined ? {} : { undelivered: none }),
      });
    }
    case 'catalog-preview':
      return catalogPreview(c, body, new Date());
    default:
      return fail('NOT_FOUND', { resource: `/v1/admin/${action}` });
  }
}

function catalogIndex(c: Catalogue) {
  const m = c.catalogManifest();
  return {
    package: m.package,
    version: m.version,
    destinations: m.destinations.map((d) => ({
      slug: d.slug,
      name: d.name,
      category: d.category ?? 'Other',
      auth: d.auth,
      supported: c.catalogSupported(d),
      delivers: undelivered(d.slug) === undefined,
      actions: d.actions.map((a) => ({ key: a.key, title: a.title })),
      search: c.catalogSearchText(d),
    })),
    unloadable: m.unloadable,
  };
}

function entryOf(c: Catalogue, slug: unknown, field: string): Step<CatalogEntry> {
  const entry = typeof slug === 'string' ? c.catalogEntry(slug) : undefined;
  return entry
    ? ok(entry)
    : invalidField(field, 'names no destination of the catalogue (eventbus destinations list --catalog)');
}

/** The stored event the preview runs: the page's sample, checked for what the runtime reads. */
function sampleEvent(raw: unknown, now: Date): Step<StoredEvent> {
  const e = record(raw);
  for (const key of ['event_name', 'event_id'] as const)
    if (typeof e[key] !== 'string' || e[key] === '')
      return invalidField(`event.${key}`, 'must be a non-empty string');
  const data = e['event_data'];
  if (data !== undefined && (typeof data !== 'object' || data === null || Array.isArray(data)))
    return invalidField('event.event_data', 'must be an object');
  return ok({
    ...e,
    event_time: typeof e['event_time'] === 'string' ? e['event_time'] : now.toISOString(),
    event_data: record(e['event_data']),
  } as unknown as StoredEvent);
}

async function catalogPreview(
  c: Catalogue,
  body: Record<string, unknown>,
  now: Date,
): Promise<Step<unknown>> {
  const draft = { id: 'preview', ...record(body['destination']) };
  const problems = destinationValidator.violations(draft, 'destination');
  if (problems.length > 0)
    return fail('INVALID_REQUEST', { detail: `${problems.length} problem(s).` }, problems);
  const destination = draft as Destination;
  if (destination.type !== 'segment_action')
    return invalidField('destination.type', 'must be segment_action');
  const known = entryOf(c, destination.destination, 'destination.destination');
  if (!known.ok) return known;
  const { segmentActionProblems } = await import('../core/platforms/segment-action/check.ts');
  const checks = segmentActionProblems(destination);
  if (checks.length > 0)
    return fail(
      'INVALID_REQUEST',
      { detail: `${checks.length} problem(s).` },
      // Each `<key>: <what is wrong>`, its key under `destination` (check.ts).
      checks.map((p) => {
        const at = p.indexOf(': ');
        return at < 0
          ? { field: 'destination', description: p }
          : { field: p.slice(0, at), description: p.slice(at + 2) };
      }),
    );
  const event = sampleEvent(body['event'], now);
  if (!event.ok) return event;
  // Loaded on the first preview: actions-core and the destination's module stay out of the
  // studio's start.
  const result = await previewActions(event.value, destination, now);
  // A studio bundle without the packages (the runtime is forward-catalog's): say so, not 503.
  if (!result.installed) return notConfigured(result.reason);
  return ok({ outcomes: result.outcomes, requests: result.requests });
}
