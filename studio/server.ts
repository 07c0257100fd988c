/**
 * The studio service's admin API, first slice (docs/studio.md): the only writer of the registry.
 * JSON over HTTP with the gateway's error envelope (core/errors.ts):
 *
 *   POST   /v1/admin/apply                            {documents: [...], dryRun?: true}
 *   GET    /v1/admin/resources/{kind}                 the kind's index
 *   GET    /v1/admin/resources/{kind}/{name}          the current version
 *   GET    /v1/admin/resources/{kind}/{name}/history  every committed version
 *   DELETE /v1/admin/resources/{kind}/{name}          marks it deleted (history stays)
 *   POST   /v1/admin/preview    {definition, event}   each destination's request (read)
 *   POST   /v1/admin/tokens     {translator, expires?}  a translate:<name> token, shown once (apply)
 *   POST   /v1/admin/send       {translator, token, contentType, text, headers?}  through the gateway (apply)
 *   POST   /v1/admin/arrivals   {event, since}        stored rows and deliveries since (read)
 *   POST   /v1/admin/overview   {from, to}            the console's overview (read)
 *   POST   /v1/admin/explore    {event_id} or {from, to, user_id?, event_name?}  the explorer (read)
 *   POST   /v1/admin/sql        {query, maxRows?}     a single SELECT under the bytes cap (read)
 *   POST   /v1/admin/rule-test, /v1/admin/rule-firings   the rules page (read)
 *   POST   /v1/admin/replay-start  {destination, source, …}  a replay on the scheduler (apply)
 *   POST   /v1/admin/replays       {}                     the newest replays and their progress (read)
 *   POST   /v1/admin/live          {since, filter?, only?}  refused requests and stored events (read)
 *   POST   /v1/admin/destination-health {from, to}      the ledger per destination (read)
 *   POST   /v1/admin/destination-attempts {destination, status?, reason?, limit?}  the debugger (read)
 *   POST   /v1/admin/event-trace {event_id}            the event's trace as a waterfall (read)
 *   POST   /v1/admin/alert-test    {name}               an alert's test message, by the scheduler (apply)
 *   POST   /v1/admin/alert-status  {alerts}             each alert firing / clear / never evaluated (read)
 *   POST   /v1/admin/erasures      {identifiers}        an erasure request, 201 (admins: delete)
 *   POST   /v1/admin/erasure-status {erasure_id?}       the erasures' audit rows (read)
 *   POST   /v1/admin/export-person {identifiers}        the person's rows, a JSON Lines file (admins: delete)
 *   POST   /v1/admin/catalog, catalog-entry {slug}, catalog-preview {destination, event}  Segment Action Destinations (read)
 *   GET    /health
 *
 * Every call but /health needs `Authorization: Bearer <admin token>` (an admin), or, when an IAP
 * audience is configured, IAP's signed header: the verified email is the author and its role
 * comes from the settings' `studio` lists (studio/auth.ts). Before that, studio/request.ts turns
 * away cross-site writes, bodies that are not JSON, malformed paths and names (docs/security.md).
 * Every answer carries `X-Content-Type-Options: nosniff`; client errors are answered 4xx and
 * refusals worth attention (401, 403, 408, 413, 415) logged at WARNING, only the studio's own
 * failures at ERROR.
 */
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { type RegistryClient, RegistryRace, RegistryUnavailable } from '../adapters/registry.ts';
import { type DefinitionSpec, majorOf } from '../core/definitions/defined-events.ts';
import { type ApiError, apiError } from '../core/errors.ts';
import { redactUrl } from '../core/privacy/redact-url.ts';
import {
  type PlannedChange,
  REGISTRY_KINDS,
  type RegistryKind,
  type ResourceDoc,
} from '../core/registry/registry.ts';
import { resourceDiff } from '../core/registry/resource-diff.ts';
import {
  applyViolations,
  type ResourceSql,
  resourceBreakingChanges,
  resourceSql,
} from '../core/registry/resources.ts';
import { fail, ok, refuse, type Step } from '../core/step.ts';
import { catalogDestinationsOf } from '../core/syncs/audience-settings.ts';
import type { FieldViolation } from '../core/validation.ts';
import { definitionView, type ViewPlan } from '../core/warehouse/warehouse.ts';
import type { Connection } from '../schemas/settings.ts';
import type { Asset } from './assets.ts';
import { type Action, allowed, type Caller, roleOf, type StudioAccess } from './auth.ts';
import { CATALOG_ACTIONS, catalogAction } from './catalog-api.ts';
import { CONSOLE_ACTIONS, consoleAction } from './console-api.ts';
import { CREATOR_ACTIONS, type CreatorApiOptions, creatorAction } from './creator-api.ts';
import { DEBUGGER_ACTIONS, type DebuggerApiOptions, debuggerAction } from './debugger-api.ts';
import { OPS_ACTIONS, type OpsApiOptions, opsAction } from './ops-api.ts';
import { PRIVACY_ACTIONS, privacyAction } from './privacy-api.ts';
import { REPLAY_ACTIONS, type ReplayApiOptions, replayAction } from './replays-api.ts';
import { bodyUnread, checkedName, guardStateChange, pathSegments, readJsonBody } from './request.ts';

export interface StudioOptions
  extends CreatorApiOptions,
    OpsApiOptions,
    Pick<DebuggerApiOptions, 'traces'>,
    Omit<ReplayApiOptions, 'registry' | 'settings'> {
  readonly registry: RegistryClient;
  readonly adminToken: string;
  /** Who the admin token stands for, recorded as the author of what it applies. */
  readonly adminName?: string;
  /**
   * Dry-runs the SQL of applied documents (adapters/user-sql.ts resourceSqlViolations): what is
   * not a single SELECT of this project is refused at apply. Without it SQL is checked when it runs.
   */
  readonly checkSql?: (items: readonly ResourceSql[]) => Promise<FieldViolation[]>;
  /** The settings' connections, which rules and syncs name (an unknown id is refused). */
  readonly connections?: readonly Connection[];
  /**
   * Defined events' typed views (docs/definitions.md): `events_dedup` as a quoted table reference,
   * and how to create or replace a view in the events dataset. Without it no view is made.
   */
  readonly views?: {
    readonly source: string;
    ensure(v: ViewPlan): Promise<string>;
  };
  /** The web pages (studio/assets.ts), served without the token: they hold no data. */
  readonly assets?: ReadonlyMap<string, Asset>;
  /** The gateway's URL, which the pages show as translators' endpoints. */
  readonly gatewayUrl?: string;
  /** Behind IAP: the signed header's verifier (studio/auth.ts iapVerifier) and who has which role. */
  readonly iap?: { readonly verify: (jwt: string) => Promise<Step<string>>; readonly access: StudioAccess };
  /**
   * Origins taken as the studio's own besides its Host's (`https://studio.acme.example`): for a
   * proxy that rewrites Host without saying so in X-Forwarded-Host (studio/request.ts).
   */
  readonly origins?: readonly string[];
  /** How long a request body may take to arrive (default 10 s, as at the gateway). */
  readonly bodyTimeoutMs?: number;
  /** Where log entries go (one JSON line each on stdout unless given). */
  readonly log?: (entry: Record<string, unknown>) => void;
}

/**
 * The pages' policy: scripts, styles and connections to this origin only, nothing inline, no
 * frames; with everything from samples written as text, a hostile cell cannot run.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function send(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(text);
}

/**
 * Answers a refusal. One sent before the body was read whole (a cross-site write, a slow body)
 * closes the connection rather than wait for the rest of the body to drain.
 */
function answerError(req: http.IncomingMessage, res: http.ServerResponse, e: ApiError): void {
  send(res, e.http, e.body, { ...e.headers, ...(bodyUnread(req) ? { connection: 'close' } : {}) });
}

/** Refusals worth a person's attention: someone without access, or a client that misbehaves. */
const WARNING_STATUSES = new Set([401, 403, 408, 413, 415]);

function authorised(req: http.IncomingMessage, token: string): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1] as string);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The caller: the admin token's admin, or IAP's verified caller with their role; else a refusal. */
async function callerOf(o: StudioOptions, req: http.IncomingMessage): Promise<Step<Caller>> {
  if (authorised(req, o.adminToken)) return ok({ author: o.adminName ?? 'local-admin', role: 'admin' });
  const jwt = req.headers['x-goog-iap-jwt-assertion'];
  if (!o.iap || typeof jwt !== 'string')
    return fail('INVALID_CREDENTIALS', { detail: 'The studio needs the admin token.' });
  const email = await o.iap.verify(jwt);
  if (!email.ok) return email;
  const role = roleOf(email.value, o.iap.access);
  if (!role) return fail('PERMISSION_DENIED', { detail: `${email.value} has no studio role` });
  return ok({ author: email.value, role });
}

/** Undefined when the caller's role allows the action, else the 403 to answer. */
function forbidden(caller: Caller, action: Action): Step<never> | undefined {
  if (allowed(caller.role, action)) return undefined;
  return fail('PERMISSION_DENIED', {
    detail: `${caller.author} is a studio ${caller.role}, not allowed to ${action}`,
  });
}

function kindOf(raw: string | undefined): Step<RegistryKind> {
  const kind = REGISTRY_KINDS.find((k) => k === raw);
  if (kind) return ok(kind);
  return fail('NOT_FOUND', { resource: `kind ${raw ?? ''} (kinds: ${REGISTRY_KINDS.join(', ')})` });
}

async function apply(o: StudioOptions, req: http.IncomingMessage, author: string): Promise<Step<unknown>> {
  const body = await readJsonBody(req, o.bodyTimeoutMs);
  if (!body.ok) return body;
  const b = (typeof body.value === 'object' && body.value !== null ? body.value : {}) as {
    documents?: unknown;
    dryRun?: unknown;
  };
  if (!Array.isArray(b.documents) || b.documents.length === 0)
    return fail('INVALID_RESOURCE', { detail: 'Send {"documents": [...]}.' }, [
      { field: 'documents', description: 'must be a non-empty list of resource documents' },
    ]);
  const problems = applyViolations(b.documents, {
    connections: o.connections ?? [],
    ...(o.settings
      ? {
          destinations: (o.settings.destinations ?? []).map((d) => d.id),
          catalogDestinations: catalogDestinationsOf(o.settings.destinations ?? []),
        }
      : {}),
  });
  if (problems.length === 0 && o.checkSql)
    problems.push(...(await o.checkSql(resourceSql(b.documents as ResourceDoc[]))));
  if (problems.length > 0)
    return fail('INVALID_RESOURCE', { detail: `${problems.length} problem(s).` }, problems);
  const docs = b.documents as ResourceDoc[];
  const changes = await o.registry.apply(docs, {
    author,
    dryRun: b.dryRun === true,
    breaking: resourceBreakingChanges,
  });
  if (b.dryRun === true) return ok({ dryRun: true, changes: await withDiffs(o, docs, changes) });
  const views = await definitionViews(o, docs, changes);
  return ok({ dryRun: false, changes, ...(views.length > 0 ? { views } : {}) });
}

/** A dry run's changes, each with the diff from the current version to the document sent. */
async function withDiffs(
  o: StudioOptions,
  docs: readonly ResourceDoc[],
  changes: readonly PlannedChange[],
): Promise<(PlannedChange & { diff?: string })[]> {
  return Promise.all(
    changes.map(async (c) => {
      if (c.change === 'unchanged') return c;
      const doc = docs.find((d) => d.kind === c.kind && d.name === c.name);
      const before = c.previous
        ? { doc: await o.registry.readVersion(c.kind, c.name, c.previous), label: c.previous }
        : undefined;
      const after = doc && c.change !== 'deleted' ? { doc, label: `${c.version} (proposed)` } : undefined;
      return { ...c, diff: resourceDiff(before, after) };
    }),
  );
}

/**
 * The typed views of the definitions an apply created or changed: `<name>` for the current
 * version, and on a new major `<name>_v<N>` for the major it replaced (its last version). A view
 * that fails is reported, not fatal: the registry is the commit point, and the next apply (or
 * `eventbus apply` of the same file, unchanged) makes it again.
 */
async function definitionViews(
  o: StudioOptions,
  docs: readonly ResourceDoc[],
  changes: readonly PlannedChange[],
): Promise<{ name: string; result: string }[]> {
  const views = o.views;
  if (!views) return [];
  const out: { name: string; result: string }[] = [];
  for (const c of changes) {
    if (c.kind !== 'EventDefinition' || c.change === 'deleted') continue;
    const doc = docs.find((d) => d.kind === c.kind && d.name === c.name);
    if (!doc) continue;
    const plans = [definitionView(views.source, defOf(doc, c.version), true)];
    if (c.previous && majorOf(c.previous) !== majorOf(c.version)) {
      const before = await o.registry.readVersion('EventDefinition', c.name, c.previous);
      plans.push(definitionView(views.source, defOf(before, c.previous), false));
    }
    for (const v of plans) {
      out.push({
        name: v.name,
        result: await views.ensure(v).catch((err: unknown) => `failed: ${String(err)}`),
      });
    }
  }
  return out;
}

const defOf = (doc: ResourceDoc, version: string) => ({
  name: doc.name,
  version,
  fields: (doc.spec as unknown as DefinitionSpec).fields,
  ...(doc.description ? { description: doc.description } : {}),
});

/**
 * What a request is answered with: JSON (200 unless said, with these headers), a text file (an
 * access request's JSON Lines, with its headers), or one of the pages' files.
 */
type Answer =
  | { readonly json: unknown; readonly status?: number; readonly headers?: Record<string, string> }
  | { readonly text: string; readonly headers: Readonly<Record<string, string>> }
  | { readonly asset: Asset };

/** A handler's step, its value answered as JSON. */
const answered = (step: Step<unknown>): Step<Answer> => (step.ok ? ok({ json: step.value }) : step);

async function route(o: StudioOptions, req: http.IncomingMessage): Promise<Step<Answer>> {
  const url = new URL(req.url ?? '/', 'http://studio');
  const method = req.method ?? 'GET';
  const parts = pathSegments(url.pathname);
  if (!parts.ok) return parts;
  const guarded = guardStateChange(req, method, o.origins);
  if (!guarded.ok) return guarded;
  if (url.pathname === '/health' && method === 'GET') return ok({ json: { status: 'ok' } });
  const asset = req.method === 'GET' ? o.assets?.get(url.pathname) : undefined;
  if (asset) return ok({ asset });
  if (url.pathname === '/config.json' && req.method === 'GET')
    return ok({ json: { gatewayUrl: o.gatewayUrl ?? null }, headers: PAGE_HEADERS });
  if (parts.value[0] !== 'v1' || parts.value[1] !== 'admin')
    return fail('NOT_FOUND', { resource: url.pathname });
  const caller = await callerOf(o, req);
  if (!caller.ok) return caller;
  return adminRoute(o, req, { method, path: url.pathname, parts: parts.value, caller: caller.value });
}

/** A call on /v1/admin/… by a known caller: an action, an apply, or the resources' routes. */
async function adminRoute(
  o: StudioOptions,
  req: http.IncomingMessage,
  call: { method: string; path: string; parts: string[]; caller: Caller },
): Promise<Step<Answer>> {
  const { method, parts, caller } = call;
  const author = caller.author;
  const action = parts.length === 3 ? (parts[2] as string) : '';
  const creator = Object.hasOwn(CREATOR_ACTIONS, action) ? CREATOR_ACTIONS[action] : undefined;
  const viewing = Object.hasOwn(CONSOLE_ACTIONS, action) ? CONSOLE_ACTIONS[action] : undefined;
  const replaying = Object.hasOwn(REPLAY_ACTIONS, action) ? REPLAY_ACTIONS[action] : undefined;
  const operating = Object.hasOwn(OPS_ACTIONS, action) ? OPS_ACTIONS[action] : undefined;
  const privacy = Object.hasOwn(PRIVACY_ACTIONS, action) ? PRIVACY_ACTIONS[action] : undefined;
  const debugging = Object.hasOwn(DEBUGGER_ACTIONS, action) ? DEBUGGER_ACTIONS[action] : undefined;
  const cataloguing = Object.hasOwn(CATALOG_ACTIONS, action) ? CATALOG_ACTIONS[action] : undefined;
  if (creator || viewing || replaying || operating || privacy || debugging || cataloguing) {
    if (method !== 'POST') return notAllowed(call, 'POST');
    const denied = forbidden(
      caller,
      (creator ?? viewing ?? replaying ?? operating ?? privacy ?? debugging ?? cataloguing) as Action,
    );
    if (denied) return denied;
    const body = await readJsonBody(req, o.bodyTimeoutMs);
    if (!body.ok) return body;
    if (cataloguing) return answered(await catalogAction(action, body.value));
    if (privacy) return privacyAction(o, action, body.value, author);
    if (debugging)
      return answered(await debuggerAction(o, action, body.value, allowed(caller.role, 'apply')));
    return answered(
      creator
        ? await creatorAction(o, action, body.value, author)
        : replaying
          ? await replayAction(o, action, body.value, author)
          : operating
            ? await opsAction(o, action, body.value)
            : await consoleAction(o, action, body.value),
    );
  }
  const denied = forbidden(
    caller,
    method === 'DELETE' ? 'delete' : method === 'GET' || method === 'HEAD' ? 'read' : 'apply',
  );
  if (denied) return denied;
  if (parts[2] === 'apply' && parts.length === 3) {
    if (method !== 'POST') return notAllowed(call, 'POST');
    return answered(await apply(o, req, author));
  }
  return answered(await resources(o, call));
}

/** 405 naming the methods the path takes. */
function notAllowed(call: { method: string; path: string }, allow: string): Step<never> {
  const e = apiError('METHOD_NOT_ALLOWED', { method: call.method, path: call.path });
  return refuse({ ...e, headers: { ...e.headers, allow } });
}

/** /v1/admin/resources/{kind}[/{name}[/history]]: the index, a version, its history, a delete. */
async function resources(
  o: StudioOptions,
  call: { method: string; path: string; parts: string[]; caller: Caller },
): Promise<Step<unknown>> {
  const { method, parts } = call;
  const author = call.caller.author;
  if (parts[2] !== 'resources' || parts.length < 4 || parts.length > 6)
    return fail('NOT_FOUND', { resource: call.path });
  const kindStep = kindOf(parts[3]);
  if (!kindStep.ok) return kindStep;
  const kind = kindStep.value;
  if (parts[4] === undefined) {
    if (method !== 'GET') return notAllowed(call, 'GET');
    const { index, generation } = await o.registry.readIndex(kind);
    const resources = Object.entries(index.resources).map(([n, e]) => ({ name: n, ...e }));
    return ok({ kind, generation: String(generation), resources });
  }
  const named = checkedName(kind, parts[4], 'name');
  if (!named.ok) return named;
  const name = named.value;
  if (parts[5] === 'history') {
    if (method !== 'GET') return notAllowed(call, 'GET');
    return ok({ kind, name, versions: await o.registry.history(kind, name) });
  }
  if (parts.length === 6) return fail('NOT_FOUND', { resource: call.path });
  if (method === 'DELETE') {
    const changes = await o.registry.delete(kind, name, author);
    if (changes.length === 0) return fail('NOT_FOUND', { resource: `${kind}/${name}` });
    return ok({ changes });
  }
  if (method !== 'GET') return notAllowed(call, 'GET, DELETE');
  const { resources } = (await o.registry.readIndex(kind)).index;
  const entry = Object.hasOwn(resources, name) ? resources[name] : undefined;
  if (!entry || entry.deleted) return fail('NOT_FOUND', { resource: `${kind}/${name}` });
  return ok(await o.registry.readVersion(kind, name, entry.version));
}

/**
 * The studio's request handler; never throws, answers every failure in the error envelope: a
 * refused step as it says, what was thrown (the registry, the warehouse) as 409 or 503.
 */
export function createStudioHandler(
  o: StudioOptions,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const log = o.log ?? ((entry) => console.log(JSON.stringify(entry)));
  return (req, res) => {
    route(o, req)
      .then((step) => {
        if (step.ok) {
          write(res, step.value);
          return;
        }
        const e = step.error;
        // The rest (a bad field, an unknown path) is the caller's to read in the answer.
        if (WARNING_STATUSES.has(e.http))
          log({
            severity: 'WARNING',
            component: 'studio',
            // The URL as every service shows one: a `?token=` (the admin token pasted in a link) redacted.
            message: `refused ${req.method} ${redactUrl(req.url ?? '').slice(0, 200)}: ${e.http} ${e.body.error.message}`,
            status: e.http,
          });
        answerError(req, res, e);
      })
      .catch((err: unknown) => {
        if (err instanceof RegistryRace)
          return answerError(req, res, apiError('REGISTRY_RACE', { detail: err.message }));
        if (err instanceof RegistryUnavailable)
          return answerError(req, res, apiError('UNAVAILABLE', { retryAfter: 5 }));
        log({ severity: 'ERROR', component: 'studio', message: `registry call failed: ${String(err)}` });
        answerError(req, res, apiError('UNAVAILABLE', { retryAfter: 5 }));
      });
  };
}

function write(res: http.ServerResponse, a: Answer): void {
  if ('json' in a) {
    send(res, a.status ?? 200, a.json, a.headers);
    return;
  }
  if ('text' in a) {
    res.writeHead(200, { 'x-content-type-options': 'nosniff', ...a.headers });
    res.end(a.text);
    return;
  }
  res.writeHead(200, { 'content-type': a.asset.type, ...PAGE_HEADERS });
  res.end(a.asset.body);
}

export async function startStudio(
  o: StudioOptions & { readonly host?: string; readonly port?: number },
): Promise<{ readonly url: string; readonly port: number; close(): Promise<void> }> {
  // The 10 s cut on bodies is the handler's (studio/request.ts); these bound the rest of a
  // request's arrival, as at the gateway, instead of Node's five minutes.
  const server = http.createServer(
    { requestTimeout: 60_000, headersTimeout: 20_000 },
    createStudioHandler(o),
  );
  // A request Node cannot parse: the envelope and nosniff, as on every other answer.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const text = JSON.stringify(
      apiError('INVALID_REQUEST', { detail: 'The request could not be parsed.' }).body,
    );
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\nx-content-type-options: nosniff\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
  });
  const host = o.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
