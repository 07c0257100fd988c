/**
 * Each access need (core/access/needs.ts) tried against running emulators that enforce IAM: one
 * real call per need, made with a token for the need's workload, that needs exactly the row's
 * permission and has no lasting effect (an empty publish or acknowledge, an empty insertAll, a
 * dry-run query, a read of one row, a metadata read, a list of one, an upload that must not
 * overwrite and is removed again, a delete of a name that does not exist, a secret's latest
 * version read, an empty OTLP export, a read of a trace that does not exist). A row is met when
 * the call is refused (HTTP 403) exactly when the row says `denied`. Permissions of services with
 * no local stand-in (Data Catalog, Cloud Run, IAP), and
 * adding a secret version (it would last), are reported as not tried: the offline check of the
 * program (test/infra/access-needs.test.ts) covers them.
 */
import { randomUUID } from 'node:crypto';
import type { AccessNeed } from '../core/access/needs.ts';
import type { Settings } from '../schemas/settings.ts';
import { EMULATORS, receiver } from './services.ts';
import { type LocalEnvironment, startEnvironment } from './supervisor.ts';

export interface Endpoints {
  /** `http://host:port` of each emulator's main port (a token says who calls). */
  readonly pubsub: string;
  readonly bigquery: string;
  readonly storage: string;
  readonly firestore: string;
  /** The Secret Manager emulator (absent: its rows are not tried). */
  readonly secretManager?: string;
  /**
   * The local receiver, Cloud Trace's and Cloud Monitoring's stand-in for the Telemetry API's OTLP
   * endpoints and Cloud Trace's v1 reads (absent: their rows are not tried).
   */
  readonly receiver?: string;
}

export type ProbeResult =
  | { readonly need: AccessNeed; readonly tried: false }
  | {
      readonly need: AccessNeed;
      readonly tried: true;
      readonly status: number;
      readonly met: boolean;
      readonly body: string;
    };

const parts = (resource: string, re: RegExp): string[] => {
  const m = re.exec(resource);
  if (!m) throw new Error(`unexpected resource name ${resource}`);
  return m.slice(1) as string[];
};
const TABLE = /^projects\/([^/]+)\/datasets\/([^/]+)\/tables\/([^/]+)$/;
const DATASET = /^projects\/([^/]+)\/datasets\/([^/]+)$/;
const PROJECT = /^projects\/([^/]+)$/;
const OBJECT = /^projects\/_\/buckets\/([^/]+)\/objects\/(.+)$/;
const BUCKET = /^projects\/_\/buckets\/([^/]+)$/;
const DATABASE = /^(projects\/[^/]+\/databases\/[^/]+)$/;

/** A document of the probe's own collection in a Firestore database (never a claim's name). */
const probeDocument = (at: Endpoints, resource: string): string =>
  `${at.firestore}/v1/${parts(resource, DATABASE)[0]}/documents/access-probe/${randomUUID()}`;

interface Call {
  readonly method: string;
  readonly url: string;
  readonly body?: string;
  /** Run as the owner afterwards when the call succeeded (undo what it made). */
  readonly undo?: { readonly method: string; readonly url: string };
}

/** The call that needs `need.permission` on `need.resource`, or undefined when not emulated. */
export function callFor(need: AccessNeed, at: Endpoints): Call | undefined {
  const json = (v: unknown) => JSON.stringify(v);
  const bq = `${at.bigquery}/bigquery/v2`;
  const enc = encodeURIComponent;
  switch (need.permission) {
    case 'pubsub.topics.publish':
      return {
        method: 'POST',
        url: `${at.pubsub}/v1/${need.resource}:publish`,
        body: json({ messages: [] }),
      };
    case 'pubsub.subscriptions.consume':
      return {
        method: 'POST',
        url: `${at.pubsub}/v1/${need.resource}:acknowledge`,
        body: json({ ackIds: [] }),
      };
    case 'bigquery.tables.updateData': {
      const [p, d, t] = parts(need.resource, TABLE);
      return {
        method: 'POST',
        url: `${bq}/projects/${p}/datasets/${d}/tables/${t}/insertAll`,
        body: json({ rows: [] }),
      };
    }
    case 'bigquery.tables.getData': {
      const [p, d, t] = parts(need.resource, TABLE);
      return { method: 'GET', url: `${bq}/projects/${p}/datasets/${d}/tables/${t}/data?maxResults=1` };
    }
    case 'bigquery.jobs.create': {
      const [p] = parts(need.resource, PROJECT);
      return {
        method: 'POST',
        url: `${bq}/projects/${p}/queries`,
        body: json({ query: 'SELECT 1', useLegacySql: false, dryRun: true }),
      };
    }
    case 'bigquery.tables.create': {
      // Checked on the dataset; a row naming a table asks for a table of (about) that name.
      const table = TABLE.exec(need.resource);
      const [p, d] = table ? (table.slice(1, 3) as string[]) : parts(need.resource, DATASET);
      const t = `${table?.[3] ?? 'access_probe'}_${randomUUID().replaceAll('-', '')}`;
      return {
        method: 'POST',
        url: `${bq}/projects/${p}/datasets/${d}/tables`,
        body: json({ tableReference: { projectId: p, datasetId: d, tableId: t } }),
        undo: { method: 'DELETE', url: `${bq}/projects/${p}/datasets/${d}/tables/${t}` },
      };
    }
    case 'storage.objects.get': {
      const [b, o] = parts(need.resource, OBJECT);
      return { method: 'GET', url: `${at.storage}/storage/v1/b/${b}/o/${enc(o as string)}` };
    }
    case 'storage.objects.create': {
      const [b, o] = parts(need.resource, OBJECT);
      const name = `${o}.probe-${randomUUID()}`;
      return {
        method: 'POST',
        url: `${at.storage}/upload/storage/v1/b/${b}/o?uploadType=media&ifGenerationMatch=0&name=${enc(name)}`,
        body: 'x',
        undo: { method: 'DELETE', url: `${at.storage}/storage/v1/b/${b}/o/${enc(name)}` },
      };
    }
    case 'storage.objects.delete': {
      const [b, o] = parts(need.resource, OBJECT);
      return {
        method: 'DELETE',
        url: `${at.storage}/storage/v1/b/${b}/o/${enc(`${o}.probe-${randomUUID()}`)}`,
      };
    }
    case 'storage.objects.list': {
      const [b] = parts(need.resource, BUCKET);
      return {
        method: 'GET',
        url: `${at.storage}/storage/v1/b/${b}/o?maxResults=1&prefix=${enc(need.listPrefix ?? '')}`,
      };
    }
    // Firestore checks every data permission on the database; each call names a new document.
    case 'datastore.entities.get':
      return { method: 'GET', url: probeDocument(at, need.resource) };
    case 'datastore.entities.create': {
      const url = probeDocument(at, need.resource);
      const cut = url.lastIndexOf('/');
      return {
        method: 'POST',
        url: `${url.slice(0, cut)}?documentId=${url.slice(cut + 1)}`,
        body: json({ fields: {} }),
        undo: { method: 'DELETE', url },
      };
    }
    case 'datastore.entities.update':
      // Must exist: an update (not a create) that finds nothing, 404 once allowed.
      return {
        method: 'PATCH',
        url: `${probeDocument(at, need.resource)}?currentDocument.exists=true`,
        body: json({ fields: {} }),
      };
    case 'datastore.entities.delete':
      return { method: 'DELETE', url: probeDocument(at, need.resource) };
    // Secret Manager checks the permission before existence: a secret with no value locally (the
    // settings and the token store are files here) is 404 once allowed, 403 when not.
    case 'secretmanager.versions.access':
      return at.secretManager
        ? { method: 'GET', url: `${at.secretManager}/v1/${need.resource}/versions/latest:access` }
        : undefined;
    case 'secretmanager.versions.destroy':
      // A version that does not exist: nothing is destroyed.
      return at.secretManager
        ? {
            method: 'POST',
            url: `${at.secretManager}/v1/${need.resource}/versions/999999:destroy`,
            body: '{}',
          }
        : undefined;
    // The Telemetry API's OTLP endpoints: an export with nothing in it writes nothing.
    case 'telemetry.traces.write':
      return at.receiver
        ? { method: 'POST', url: `${at.receiver}/v1/traces`, body: json({ resourceSpans: [] }) }
        : undefined;
    case 'monitoring.timeSeries.create':
      return at.receiver
        ? { method: 'POST', url: `${at.receiver}/v1/metrics`, body: json({ resourceMetrics: [] }) }
        : undefined;
    // A trace that does not exist: 404 once allowed, 403 when not.
    case 'cloudtrace.traces.get': {
      const [p] = parts(need.resource, PROJECT);
      return at.receiver
        ? { method: 'GET', url: `${at.receiver}/v1/projects/${p}/traces/${randomUUID().replaceAll('-', '')}` }
        : undefined;
    }
    default:
      return undefined;
  }
}

/** Tries every need with `tokenOf(need.who)`; undoes what succeeded, as the owner (no token). */
export async function probeNeeds(
  needs: readonly AccessNeed[],
  at: Endpoints,
  tokenOf: (who: AccessNeed['who']) => string,
): Promise<ProbeResult[]> {
  const out: ProbeResult[] = [];
  for (const need of needs) {
    const call = callFor(need, at);
    if (!call) {
      out.push({ need, tried: false });
      continue;
    }
    const res = await fetch(call.url, {
      method: call.method,
      headers: { authorization: `Bearer ${tokenOf(need.who)}`, 'content-type': 'application/json' },
      ...(call.body !== undefined ? { body: call.body } : {}),
    });
    const body = await res.text();
    if (res.ok && call.undo) await (await fetch(call.undo.url, { method: call.undo.method })).arrayBuffer();
    const refused = res.status === 403;
    out.push({ need, tried: true, status: res.status, met: refused === (need.denied === true), body });
  }
  return out;
}

/** One line per unmet row, naming what was asked, the answer and the feature. */
export function unmetLines(results: readonly ProbeResult[]): string[] {
  return results.flatMap((r) =>
    r.tried && !r.met
      ? [
          `${r.need.denied ? 'ALLOWED but must not be' : `REFUSED (${r.status})`}: ${r.need.who} ${r.need.permission} on ${r.need.resource}${r.need.listPrefix !== undefined ? ` (list ${r.need.listPrefix})` : ''} — ${r.need.feature}${r.need.denied ? '' : `: ${r.body.slice(0, 200)}`}`,
        ]
      : [],
  );
}

/**
 * The emulators, provisioned from `settings`, and the receiver (Cloud Trace's and Cloud
 * Monitoring's stand-in), on free ports, IAM on unless said: no workload runs.
 */
export function startEmulators(
  settings: Readonly<Settings>,
  dataDir: string,
  iam = true,
): Promise<LocalEnvironment> {
  return startEnvironment({
    settings,
    dataDir,
    services: [...EMULATORS, receiver],
    freePorts: true,
    tickSeconds: 0,
    iam,
    log: () => {},
  });
}

/** The main endpoints of a started environment's emulators. */
export const endpointsOf = (env: LocalEnvironment): Endpoints => ({
  pubsub: env.urls['pubsub'] as string,
  bigquery: env.urls['bigquery'] as string,
  storage: env.urls['storage'] as string,
  firestore: env.urls['firestore'] as string,
  ...(env.urls['secret-manager'] ? { secretManager: env.urls['secret-manager'] } : {}),
  ...(env.urls['receiver'] ? { receiver: env.urls['receiver'] } : {}),
});
