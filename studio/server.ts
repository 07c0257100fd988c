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
 *   POST   /v1/admin/send       {translator, token, contentType, text}  through the gateway (apply)
 *   POST   /v1/admin/arrivals   {event, since}        stored rows and deliveries since (read)
 *   POST   /v1/admin/overview   {from, to}            the console's overview (read)
 *   POST   /v1/admin/explore    {event_id} or {from, to, user_id?, event_name?}  the explorer (read)
 *   POST   /v1/admin/sql        {query, maxRows?}     a single SELECT under the bytes cap (read)
 *   POST   /v1/admin/rule-test, /v1/admin/rule-firings   the rules page (read)
 *   POST   /v1/admin/replay-start  {destination, source, …}  a replay on the scheduler (apply)
 *   POST   /v1/admin/replays       {}                     the newest replays and their progress (read)
 *   POST   /v1/admin/live          {since, filter?, only?}  refused requests and stored events (read)
 *   POST   /v1/admin/destination-health {from, to}      the ledger per destination (read)
 *   POST   /v1/admin/alert-test    {name}               an alert's test message, by the scheduler (apply)
 *   POST   /v1/admin/alert-status  {alerts}             each alert firing / clear / never evaluated (read)
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
import { type ApiError, apiError, withViolations } from '../core/errors.ts';
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
import type { FieldViolation } from '../core/validation.ts';
import { definitionView, type ViewPlan } from '../core/warehouse/warehouse.ts';
import type { Connection } from '../schemas/settings.ts';
import type { Asset } from './assets.ts';
import { type Action, allowed, type Caller, IapRefused, roleOf, type StudioAccess } from './auth.ts';
import { CONSOLE_ACTIONS, consoleAction } from './console-api.ts';
import { CREATOR_ACTIONS, type CreatorApiOptions, creatorAction } from './creator-api.ts';
import { OPS_ACTIONS, type OpsApiOptions, opsAction } from './ops-api.ts';
import { Refusal } from './refusal.ts';
import { REPLAY_ACTIONS, type ReplayApiOptions, replayAction } from './replays-api.ts';
import { bodyUnread, checkedName, guardStateChange, pathSegments, readJsonBody } from './request.ts';

export interface StudioOptions
  extends CreatorApiOptions,
    OpsApiOptions,
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
  readonly iap?: { readonly verify: (jwt: string) => Promise<string>; readonly access: StudioAccess };
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
function refuse(req: http.IncomingMessage, res: http.ServerResponse, e: ApiError): void {
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
async function callerOf(o: StudioOptions, req: http.IncomingMessage): Promise<Caller> {
  if (authorised(req, o.adminToken)) return { author: o.adminName ?? 'local-admin', role: 'admin' };
  const jwt = req.headers['x-goog-iap-jwt-assertion'];
  if (!o.iap || typeof jwt !== 'string')
    throw new Refusal(apiError('INVALID_CREDENTIALS', { detail: 'The studio needs the admin token.' }));
  let email: string;
  try {
    email = await o.iap.verify(jwt);
  } catch (err) {
    if (!(err instanceof IapRefused)) throw err;
    throw new Refusal(apiError('INVALID_CREDENTIALS', { detail: err.message }));
  }
  const role = roleOf(email, o.iap.access);
  if (!role) throw new Refusal(apiError('PERMISSION_DENIED', { detail: `${email} has no studio role` }));
  return { author: email, role };
}

function permit(caller: Caller, action: Action): void {
  if (!allowed(caller.role, action))
    throw new Refusal(
      apiError('PERMISSION_DENIED', {
        detail: `${caller.author} is a studio ${caller.role}, not allowed to ${action}`,
      }),
    );
}

function kindOf(raw: string | undefined): RegistryKind {
  const kind = REGISTRY_KINDS.find((k) => k === raw);
  if (!kind)
    throw new Refusal(
      apiError('NOT_FOUND', { resource: `kind ${raw ?? ''} (kinds: ${REGISTRY_KINDS.join(', ')})` }),
    );
  return kind;
}

async function apply(o: StudioOptions, req: http.IncomingMessage, author: string): Promise<unknown> {
  const body = await readJsonBody(req, o.bodyTimeoutMs);
  const b = (typeof body === 'object' && body !== null ? body : {}) as {
    documents?: unknown;
    dryRun?: unknown;
  };
  if (!Array.isArray(b.documents) || b.documents.length === 0)
    throw new Refusal(
      withViolations(apiError('INVALID_RESOURCE', { detail: 'Send {"documents": [...]}.' }), [
        { field: 'documents', description: 'must be a non-empty list of resource documents' },
      ]),
    );
  const problems = applyViolations(b.documents, { connections: o.connections ?? [] });
  if (problems.length === 0 && o.checkSql)
    problems.push(...(await o.checkSql(resourceSql(b.documents as ResourceDoc[]))));
  if (problems.length > 0)
    throw new Refusal(
      withViolations(apiError('INVALID_RESOURCE', { detail: `${problems.length} problem(s).` }), problems),
    );
  const docs = b.documents as ResourceDoc[];
  const changes = await o.registry.apply(docs, {
    author,
    dryRun: b.dryRun === true,
    breaking: resourceBreakingChanges,
  });
  if (b.dryRun === true) return { dryRun: true, changes: await withDiffs(o, docs, changes) };
  const views = await definitionViews(o, docs, changes);
  return { dryRun: false, changes, ...(views.length > 0 ? { views } : {}) };
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

async function route(o: StudioOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://studio');
  const method = req.method ?? 'GET';
  const parts = pathSegments(url.pathname);
  guardStateChange(req, method, o.origins);
  if (url.pathname === '/health' && method === 'GET') return send(res, 200, { status: 'ok' });
  const asset = req.method === 'GET' ? o.assets?.get(url.pathname) : undefined;
  if (asset) {
    res.writeHead(200, { 'content-type': asset.type, ...PAGE_HEADERS });
    res.end(asset.body);
    return;
  }
  if (url.pathname === '/config.json' && req.method === 'GET')
    return send(res, 200, { gatewayUrl: o.gatewayUrl ?? null }, PAGE_HEADERS);
  if (parts[0] !== 'v1' || parts[1] !== 'admin')
    throw new Refusal(apiError('NOT_FOUND', { resource: url.pathname }));
  const caller = await callerOf(o, req);
  const author = caller.author;
  const notAllowed = (allow: string): Refusal => {
    const e = apiError('METHOD_NOT_ALLOWED', { method, path: url.pathname });
    return new Refusal({ ...e, headers: { ...e.headers, allow } });
  };
  const action = parts.length === 3 ? (parts[2] as string) : '';
  const creator = Object.hasOwn(CREATOR_ACTIONS, action) ? CREATOR_ACTIONS[action] : undefined;
  const viewing = Object.hasOwn(CONSOLE_ACTIONS, action) ? CONSOLE_ACTIONS[action] : undefined;
  const replaying = Object.hasOwn(REPLAY_ACTIONS, action) ? REPLAY_ACTIONS[action] : undefined;
  const operating = Object.hasOwn(OPS_ACTIONS, action) ? OPS_ACTIONS[action] : undefined;
  if (creator || viewing || replaying || operating) {
    if (method !== 'POST') throw notAllowed('POST');
    permit(caller, (creator ?? viewing ?? replaying ?? operating) as Action);
    const body = await readJsonBody(req, o.bodyTimeoutMs);
    return send(
      res,
      200,
      creator
        ? await creatorAction(o, action, body, author)
        : replaying
          ? await replayAction(o, action, body, author)
          : operating
            ? await opsAction(o, action, body)
            : await consoleAction(o, action, body),
    );
  }
  permit(caller, method === 'DELETE' ? 'delete' : method === 'GET' || method === 'HEAD' ? 'read' : 'apply');
  if (parts[2] === 'apply' && parts.length === 3) {
    if (method !== 'POST') throw notAllowed('POST');
    return send(res, 200, await apply(o, req, author));
  }
  if (parts[2] !== 'resources' || parts.length < 4 || parts.length > 6)
    throw new Refusal(apiError('NOT_FOUND', { resource: url.pathname }));
  const kind = kindOf(parts[3]);
  const name = parts[4] === undefined ? undefined : checkedName(kind, parts[4], 'name');
  if (name === undefined) {
    if (method !== 'GET') throw notAllowed('GET');
    const { index, generation } = await o.registry.readIndex(kind);
    const resources = Object.entries(index.resources).map(([n, e]) => ({ name: n, ...e }));
    return send(res, 200, { kind, generation: String(generation), resources });
  }
  if (parts[5] === 'history') {
    if (method !== 'GET') throw notAllowed('GET');
    return send(res, 200, { kind, name, versions: await o.registry.history(kind, name) });
  }
  if (parts.length === 6) throw new Refusal(apiError('NOT_FOUND', { resource: url.pathname }));
  if (method === 'DELETE') {
    const changes = await o.registry.delete(kind, name, author);
    if (changes.length === 0) throw new Refusal(apiError('NOT_FOUND', { resource: `${kind}/${name}` }));
    return send(res, 200, { changes });
  }
  if (method !== 'GET') throw notAllowed('GET, DELETE');
  const { resources } = (await o.registry.readIndex(kind)).index;
  const entry = Object.hasOwn(resources, name) ? resources[name] : undefined;
  if (!entry || entry.deleted) throw new Refusal(apiError('NOT_FOUND', { resource: `${kind}/${name}` }));
  return send(res, 200, await o.registry.readVersion(kind, name, entry.version));
}

/** The studio's request handler; never throws, answers every failure in the error envelope. */
export function createStudioHandler(
  o: StudioOptions,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const log = o.log ?? ((entry) => console.log(JSON.stringify(entry)));
  return (req, res) => {
    route(o, req, res).catch((err: unknown) => {
      if (err instanceof Refusal) {
        const e = err.error;
        // The rest (a bad field, an unknown path) is the caller's to read in the answer.
        if (WARNING_STATUSES.has(e.http))
          log({
            severity: 'WARNING',
            component: 'studio',
            message: `refused ${req.method} ${(req.url ?? '').slice(0, 200)}: ${e.http} ${e.body.error.message}`,
            status: e.http,
          });
        return refuse(req, res, e);
      }
      if (err instanceof RegistryRace)
        return refuse(req, res, apiError('REGISTRY_RACE', { detail: err.message }));
      if (err instanceof RegistryUnavailable)
        return refuse(req, res, apiError('UNAVAILABLE', { retryAfter: 5 }));
      log({ severity: 'ERROR', component: 'studio', message: `registry call failed: ${String(err)}` });
      refuse(req, res, apiError('UNAVAILABLE', { retryAfter: 5 }));
    });
  };
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
