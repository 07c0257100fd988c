/**
 * Provisions the local emulators from plan(settings) with the real Google clients, the same
 * calls a developer would make against Google Cloud. Idempotent: what exists is compared and
 * left alone (or its mutable fields updated); only what is missing is created. A subscription
 * whose filter differs cannot be fixed in place (filters are immutable) and is reported.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import { PubSub, type Subscription } from '@google-cloud/pubsub';
import { Storage } from '@google-cloud/storage';
import { ensureView } from '../adapters/views.ts';
import {
  CLAIM_COLLECTIONS,
  CLAIM_EXPIRE_FIELD,
  CLAIM_FIELDS,
  type FunctionName,
  type Plan,
  type SubscriptionPlan,
  type TablePlan,
  type ViewPlan,
} from '../core/plan.ts';
import { seconds } from '../core/settings.ts';
import { PII_COLUMNS, withPolicyTags } from '../core/warehouse/pii-columns.ts';
import { provisionBigtableClaims } from './bigtable.ts';
import { emulatorBigQuery } from './emulator-bigquery.ts';

export { emulatorBigQuery };

export interface ProvisionTargets {
  readonly project: string;
  /** host:port of the Pub/Sub emulator; omitted: Pub/Sub is not provisioned. */
  readonly pubsub?: string;
  /** http://host:port of the BigQuery emulator; omitted: BigQuery is not provisioned. */
  readonly bigquery?: string;
  /** http://host:port of the Cloud Storage emulator; omitted: buckets are not provisioned. */
  readonly storage?: string;
  /** host:port of the Firestore emulator; omitted: the claims database is not provisioned. */
  readonly firestore?: string;
  /** host:port of the Bigtable emulator; omitted: the claims table (plan().claims.bigtable) is not provisioned. */
  readonly bigtable?: string;
  /**
   * The `pii` policy tag the program declares (with `pii.column_security`): put on the PII columns
   * of the warehouse tables as `pulumi up` puts it (core/warehouse/pii-columns.ts).
   */
  readonly piiTag?: string;
  /** Push endpoint of a function, e.g. `store` → http://127.0.0.1:8081/. */
  readonly functionUrl: (fn: FunctionName) => string;
}

export interface ProvisionReport {
  readonly created: string[];
  readonly updated: string[];
  readonly unchanged: string[];
  /** Differences that cannot be fixed in place, each saying what to do. */
  readonly conflicts: string[];
}

/** Creates what plan() describes and is missing from the emulators; reports what it did. */
export async function provision(p: Plan, targets: ProvisionTargets): Promise<ProvisionReport> {
  const report: ProvisionReport = { created: [], updated: [], unchanged: [], conflicts: [] };
  if (targets.pubsub) await provisionPubSub(p, targets, targets.pubsub, report);
  if (targets.bigquery) await provisionBigQuery(p, targets, targets.bigquery, report);
  if (targets.storage) await provisionStorage(p, targets.project, targets.storage, report);
  if (targets.firestore) await provisionFirestore(p, targets.project, targets.firestore, report);
  if (targets.bigtable && p.claims.bigtable)
    await provisionBigtableClaims(p.claims.bigtable, targets.project, targets.bigtable, report);
  return report;
}

/** One call to an emulator's REST API (as the owner, on its main port). */
export async function emulatorCall(
  url: string,
  method = 'GET',
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    ...(body !== undefined
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
    // For an emulator that hangs, not a slow one: beside a whole test suite on 2 cores a
    // freshly started emulator's first answers took over 10 s.
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/**
 * The claims database (plan().claims) and its TTL policies (CLAIM_EXPIRE_FIELD on each of
 * CLAIM_COLLECTIONS), as `pulumi up` declares them (infra/claims.ts). A database's location
 * cannot change: a different one is a conflict.
 */
async function provisionFirestore(p: Plan, project: string, hostPort: string, report: ProvisionReport) {
  const base = `http://${hostPort}/v1/projects/${encodeURIComponent(project)}/databases`;
  const { database, location } = p.claims;
  const got = await emulatorCall(`${base}/${database}`);
  if (got.status === 404) {
    const made = await emulatorCall(`${base}?databaseId=${database}`, 'POST', {
      locationId: location,
      type: 'FIRESTORE_NATIVE',
    });
    if (made.status !== 200) throw new Error(`creating Firestore database ${database}: HTTP ${made.status}`);
    report.created.push(`firestore database ${database}`);
  } else if (got.status !== 200)
    throw new Error(`reading Firestore database ${database}: HTTP ${got.status}`);
  else if (got.json.locationId !== location)
    report.conflicts.push(
      `firestore database ${database} is in ${String(got.json.locationId)}, the plan says ${location}: a database cannot move; delete the emulator's data (${database}) to recreate it`,
    );
  else report.unchanged.push(`firestore database ${database}`);
  for (const collection of CLAIM_COLLECTIONS) {
    // The TTL field, and every field exempt from indexing (the emulator's sequential-write limit
    // counts indexed fields only, as Firestore's does).
    for (const name of [CLAIM_EXPIRE_FIELD, ...CLAIM_FIELDS[collection]]) {
      const field = `${base}/${database}/collectionGroups/${collection}/fields/${name}`;
      const ttl = name === CLAIM_EXPIRE_FIELD;
      const what = `firestore ${ttl ? 'ttl, ' : ''}no index ${collection}.${name}`;
      const now = (await emulatorCall(field)).json;
      const mask = [
        ...(ttl && now.ttlConfig === undefined ? ['ttlConfig'] : []),
        ...(now.indexConfig === undefined ? ['indexConfig'] : []),
      ];
      if (mask.length === 0) {
        report.unchanged.push(what);
        continue;
      }
      const body = { ...(ttl ? { ttlConfig: {} } : {}), indexConfig: {} };
      const set = await emulatorCall(`${field}?updateMask=${mask.join(',')}`, 'PATCH', body);
      if (set.status !== 200) throw new Error(`setting ${what}: HTTP ${set.status}`);
      report.created.push(what);
    }
  }
}

/** A Cloud Storage client pointed at an emulator (the client sends no credentials to a custom endpoint). */
export function emulatorStorage(project: string, url: string): Storage {
  return new Storage({ projectId: project, apiEndpoint: url });
}

/**
 * Access as `pulumi up` declares it on every bucket (infra/registry.ts): IAM only (uniform
 * bucket-level access, so no ACL grants anything) and no public grants.
 */
const BUCKET_ACCESS = { uniformBucketLevelAccess: { enabled: true }, publicAccessPrevention: 'enforced' };

/**
 * Creates the plan's buckets; an existing bucket gets the plan's versioning setting and, when a
 * data directory from before it was set (it has no uniform access yet), the declared access.
 */
async function provisionStorage(
  p: Plan,
  project: string,
  url: string,
  report: ProvisionReport,
): Promise<void> {
  const storage = emulatorStorage(project, url);
  for (const b of p.buckets) {
    const bucket = storage.bucket(b.name);
    const [exists] = await bucket.exists();
    if (!exists) {
      await storage.createBucket(b.name, {
        location: b.location,
        versioning: { enabled: b.versioning },
        iamConfiguration: BUCKET_ACCESS,
      });
      report.created.push(`bucket ${b.name}`);
      continue;
    }
    const [meta] = await bucket.getMetadata();
    const access = meta.iamConfiguration;
    const declared =
      access?.uniformBucketLevelAccess?.enabled === true && access.publicAccessPrevention === 'enforced';
    if ((meta.versioning?.enabled ?? false) !== b.versioning || !declared) {
      await bucket.setMetadata({ versioning: { enabled: b.versioning }, iamConfiguration: BUCKET_ACCESS });
      report.updated.push(`bucket ${b.name}`);
    } else report.unchanged.push(`bucket ${b.name}`);
  }
}

/** A Pub/Sub client pointed at an emulator (plain-text gRPC, no credentials). */
export function emulatorPubSub(project: string, hostPort: string): PubSub {
  return new PubSub({ projectId: project, apiEndpoint: hostPort, emulatorMode: true });
}

const isAlreadyExists = (err: unknown) => (err as { code?: unknown }).code === 6;
const isNotFound = (err: unknown) => {
  const code = (err as { code?: unknown }).code;
  return code === 5 || code === 404;
};

function duration(text: string): { seconds: number; nanos: number } {
  const s = seconds(text);
  return { seconds: Math.floor(s), nanos: Math.round((s - Math.floor(s)) * 1e9) };
}

function durationSeconds(d: unknown): number {
  if (d === null || d === undefined) return 0;
  if (typeof d === 'number') return d;
  if (typeof d === 'string') return seconds(d);
  const o = d as { seconds?: unknown; nanos?: unknown };
  return Number(o.seconds ?? 0) + Number(o.nanos ?? 0) / 1e9;
}

/** The subscription settings plan() asks for, in the shape the client's create call takes. */
export function subscriptionOptions(sub: SubscriptionPlan, project: string, pushEndpoint?: string) {
  return {
    ackDeadlineSeconds: sub.ackDeadlineSeconds,
    messageRetentionDuration: duration(sub.messageRetentionDuration),
    ...(pushEndpoint ? { pushConfig: { pushEndpoint } } : {}),
    ...(sub.filter ? { filter: sub.filter } : {}),
    ...(sub.retryPolicy
      ? {
          retryPolicy: {
            minimumBackoff: duration(sub.retryPolicy.minimumBackoff),
            maximumBackoff: duration(sub.retryPolicy.maximumBackoff),
          },
        }
      : {}),
    ...(sub.deadLetterPolicy
      ? {
          deadLetterPolicy: {
            deadLetterTopic: `projects/${project}/topics/${sub.deadLetterPolicy.deadLetterTopic}`,
            maxDeliveryAttempts: sub.deadLetterPolicy.maxDeliveryAttempts,
          },
        }
      : {}),
  };
}

async function provisionPubSub(
  p: Plan,
  targets: ProvisionTargets,
  hostPort: string,
  report: ProvisionReport,
): Promise<void> {
  const pubsub = emulatorPubSub(targets.project, hostPort);
  try {
    const [topics] = await pubsub.getTopics();
    const existing = new Set(topics.map((t) => t.name.split('/').pop()));
    // Dead-letter topics come before the subscriptions that name them: create every topic first.
    for (const t of p.topics) {
      if (existing.has(t.name)) {
        report.unchanged.push(`topic ${t.name}`);
        continue;
      }
      try {
        await pubsub.createTopic(t.name);
        report.created.push(`topic ${t.name}`);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        report.unchanged.push(`topic ${t.name}`);
      }
    }
    for (const sub of p.subscriptions) {
      const endpoint = sub.push ? targets.functionUrl(sub.push.function) : undefined;
      const wanted = subscriptionOptions(sub, targets.project, endpoint);
      const handle = pubsub.subscription(sub.name);
      let current: Record<string, unknown> | undefined;
      try {
        [current] = (await handle.getMetadata()) as unknown as [Record<string, unknown>];
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      if (!current) {
        await pubsub.topic(sub.topic).createSubscription(sub.name, wanted);
        report.created.push(`subscription ${sub.name}`);
        continue;
      }
      await reconcileSubscription(sub, wanted, current, handle, report, targets.project);
    }
  } finally {
    await pubsub.close();
  }
}

async function reconcileSubscription(
  sub: SubscriptionPlan,
  wanted: ReturnType<typeof subscriptionOptions>,
  current: Record<string, unknown>,
  handle: Subscription,
  report: ProvisionReport,
  project: string,
): Promise<void> {
  const currentTopic = String(current['topic'] ?? '')
    .split('/')
    .pop();
  const currentFilter = String(current['filter'] ?? '');
  const problems: string[] = [];
  if (currentTopic && currentTopic !== sub.topic)
    problems.push(`its topic is ${currentTopic}, not ${sub.topic}`);
  if (currentFilter !== (sub.filter ?? ''))
    problems.push(
      `its filter is ${JSON.stringify(currentFilter)}, the plan says ${JSON.stringify(sub.filter ?? '')}`,
    );
  if (problems.length > 0) {
    report.conflicts.push(
      `subscription ${sub.name}: ${problems.join('; ')}. Topic and filter cannot change after creation: ` +
        `delete the subscription (its backlog is lost) or the local data directory, then start again`,
    );
    return;
  }
  // Mutable fields: bring them in line with the plan (settings may have changed since).
  const changes: Record<string, unknown> = {};
  const paths: string[] = [];
  const pushEndpoint = (current['pushConfig'] as { pushEndpoint?: string } | undefined)?.pushEndpoint ?? '';
  const wantedPush = wanted.pushConfig?.pushEndpoint ?? '';
  if (pushEndpoint !== wantedPush) {
    changes['pushConfig'] = wanted.pushConfig ?? {};
    paths.push('push_config');
  }
  if (Number(current['ackDeadlineSeconds'] ?? 0) !== wanted.ackDeadlineSeconds) {
    changes['ackDeadlineSeconds'] = wanted.ackDeadlineSeconds;
    paths.push('ack_deadline_seconds');
  }
  if (durationSeconds(current['messageRetentionDuration']) !== seconds(sub.messageRetentionDuration)) {
    changes['messageRetentionDuration'] = wanted.messageRetentionDuration;
    paths.push('message_retention_duration');
  }
  const retry = current['retryPolicy'] as { minimumBackoff?: unknown; maximumBackoff?: unknown } | null;
  const retryDiffers = sub.retryPolicy
    ? !retry ||
      durationSeconds(retry.minimumBackoff) !== seconds(sub.retryPolicy.minimumBackoff) ||
      durationSeconds(retry.maximumBackoff) !== seconds(sub.retryPolicy.maximumBackoff)
    : !!retry && (retry.minimumBackoff !== undefined || retry.maximumBackoff !== undefined);
  if (retryDiffers) {
    changes['retryPolicy'] = wanted.retryPolicy ?? null;
    paths.push('retry_policy');
  }
  const dl = current['deadLetterPolicy'] as { deadLetterTopic?: string; maxDeliveryAttempts?: number } | null;
  const wantedDl = sub.deadLetterPolicy;
  const dlDiffers = wantedDl
    ? !dl ||
      dl.deadLetterTopic !== `projects/${project}/topics/${wantedDl.deadLetterTopic}` ||
      Number(dl.maxDeliveryAttempts ?? 0) !== wantedDl.maxDeliveryAttempts
    : !!dl?.deadLetterTopic;
  if (dlDiffers) {
    changes['deadLetterPolicy'] = wanted.deadLetterPolicy ?? null;
    paths.push('dead_letter_policy');
  }
  if (paths.length === 0) {
    report.unchanged.push(`subscription ${sub.name}`);
    return;
  }
  await handle.setMetadata(changes);
  report.updated.push(`subscription ${sub.name} (${paths.join(', ')})`);
}

async function provisionBigQuery(
  p: Plan,
  targets: ProvisionTargets,
  endpoint: string,
  report: ProvisionReport,
): Promise<void> {
  const bigquery = emulatorBigQuery(targets.project, endpoint);
  const dataset = bigquery.dataset(p.dataset);
  const [datasetExists] = await dataset.exists();
  if (datasetExists) report.unchanged.push(`dataset ${p.dataset}`);
  else {
    await bigquery.createDataset(p.dataset, { location: p.location });
    report.created.push(`dataset ${p.dataset}`);
  }
  for (const t of p.tables) {
    const paths = PII_COLUMNS[t.name];
    const pii = targets.piiTag && paths ? { tag: targets.piiTag, paths } : undefined;
    await provisionTable(dataset, t, report, pii);
  }
  for (const v of p.views) await provisionView(dataset, v, report);
  const ops = bigquery.dataset(p.ops.dataset);
  if ((await ops.exists())[0]) report.unchanged.push(`dataset ${p.ops.dataset}`);
  else {
    await bigquery.createDataset(p.ops.dataset, { location: p.location });
    report.created.push(`dataset ${p.ops.dataset}`);
  }
  for (const t of p.ops.tables) await provisionTable(ops, t, report);
}

type Dataset = ReturnType<BigQuery['dataset']>;

/** Column-level security on a table: the policy tag, and the dotted paths of the columns it goes on. */
interface PiiTagging {
  readonly tag: string;
  readonly paths: readonly string[];
}

/** The policy tags of a schema, by dotted path: what tells a table tagged as planned. */
function tagsOf(fields: readonly SchemaField[], prefix = ''): string[] {
  return fields.flatMap((f) => {
    const path = `${prefix}${f.name}`;
    if (f.fields) return tagsOf(f.fields, `${path}.`);
    const names = (f['policyTags'] as { names?: string[] } | undefined)?.names ?? [];
    return names.map((n) => `${path}=${n}`);
  });
}

/** The table resource plan() describes, in the REST API's shape. */
export function tableResource(t: TablePlan): Record<string, unknown> {
  return {
    description: t.description,
    schema: { fields: t.columns },
    ...(t.timePartitioning ? { timePartitioning: t.timePartitioning } : {}),
    ...(t.clustering ? { clustering: { fields: t.clustering } } : {}),
  };
}

async function provisionTable(
  dataset: Dataset,
  planned: TablePlan,
  report: ProvisionReport,
  pii?: PiiTagging,
): Promise<void> {
  const t = pii
    ? { ...planned, columns: withPolicyTags(planned.columns, pii.paths, pii.tag) as TablePlan['columns'] }
    : planned;
  const table = dataset.table(t.name);
  const [exists] = await table.exists();
  if (!exists) {
    await dataset.createTable(t.name, tableResource(t));
    report.created.push(`table ${t.name}`);
    return;
  }
  const [metadata] = (await table.getMetadata()) as unknown as [
    { schema?: { fields?: SchemaField[] }; timePartitioning?: Partitioning },
  ];
  const want = t.columns as unknown as SchemaField[];
  const added = withAddedFields(metadata.schema?.fields ?? [], want);
  // A table made before column-level security was turned on takes the planned tags in place.
  const retag = pii !== undefined && tagsOf(added.fields).join() !== tagsOf(want).join();
  const change = retag
    ? { ...added, fields: withPolicyTags(added.fields as never, pii.paths, pii.tag) as SchemaField[] }
    : added;
  // BigQuery allows adding NULLABLE/REPEATED columns in place, at any depth; anything else needs a
  // new table.
  if (change.required.length > 0) {
    report.conflicts.push(
      `table ${t.name}: missing REQUIRED column(s) ${change.required.join(', ')}; ` +
        'required columns cannot be added to an existing table: delete the table or the local data directory',
    );
    return;
  }
  // Retention changes in place too (a data directory of an older version takes the new expiration).
  const expiry = expirationChange(metadata.timePartitioning, t.timePartitioning);
  if (change.added.length === 0 && expiry === undefined && !retag) {
    report.unchanged.push(`table ${t.name}`);
    return;
  }
  await table.setMetadata({
    ...(change.added.length > 0 || retag
      ? { schema: { fields: change.fields as unknown as Record<string, unknown>[] } }
      : {}),
    ...(expiry !== undefined ? { timePartitioning: t.timePartitioning } : {}),
  });
  const what = [
    ...(change.added.length > 0 ? [`added ${change.added.join(', ')}`] : []),
    ...(retag ? ['policy tags on its PII columns'] : []),
    ...(expiry ? [expiry] : []),
  ];
  report.updated.push(`table ${t.name} (${what.join('; ')})`);
}

/** A table's time partitioning as the REST API gives it (expirationMs is a string there). */
export interface Partitioning {
  readonly type?: string;
  readonly field?: string;
  readonly expirationMs?: string | number;
}

/**
 * What changes in a table's partition expiration, said for the report ("partition expiration 90
 * days, was none"), or undefined when nothing does. Only the expiration is patched: a table
 * partitioned otherwise (or not at all) keeps its partitioning, which BigQuery cannot change. Pure.
 */
export function expirationChange(
  have: Partitioning | undefined,
  want: Partitioning | undefined,
): string | undefined {
  if (!have || !want || String(have.field).toLowerCase() !== String(want.field).toLowerCase())
    return undefined;
  if ((have.type ?? 'DAY') !== (want.type ?? 'DAY')) return undefined;
  const ms = (p: Partitioning) => {
    const n = Number(p.expirationMs ?? 0);
    return Number.isFinite(n) && n > 0 ? n : 0;
  };
  const before = ms(have);
  const after = ms(want);
  if (before === after) return undefined;
  const days = (n: number) => (n === 0 ? 'none' : `${n / 86_400_000} days`);
  return `partition expiration ${days(after)}, was ${days(before)}`;
}

/** A schema field as the REST API gives it (other keys, such as descriptions, kept as they are). */
export interface SchemaField {
  readonly name: string;
  readonly mode?: string;
  readonly fields?: readonly SchemaField[];
  readonly [key: string]: unknown;
}

/**
 * The table's schema with what the plan's adds, at any depth (a field inside a RECORD too), in the
 * table's order with the additions after; the dotted names added, and those of them REQUIRED
 * (which no existing table can take). Pure.
 */
export function withAddedFields(
  have: readonly SchemaField[],
  want: readonly SchemaField[],
  prefix = '',
): { fields: SchemaField[]; added: string[]; required: string[] } {
  const added: string[] = [];
  const required: string[] = [];
  const same = (a: SchemaField, b: SchemaField) => a.name.toLowerCase() === b.name.toLowerCase();
  const fields = have.map((h) => {
    const w = want.find((x) => same(x, h));
    if (!h.fields || !w?.fields) return h;
    const inner = withAddedFields(h.fields, w.fields, `${prefix}${h.name}.`);
    added.push(...inner.added);
    required.push(...inner.required);
    return inner.added.length > 0 ? { ...h, fields: inner.fields } : h;
  });
  for (const w of want) {
    if (have.some((h) => same(h, w))) continue;
    added.push(`${prefix}${w.name}`);
    if (w.mode === 'REQUIRED') required.push(`${prefix}${w.name}`);
    fields.push(w);
  }
  return { fields, added, required };
}

async function provisionView(dataset: Dataset, v: ViewPlan, report: ProvisionReport): Promise<void> {
  const done = await ensureView(dataset, v);
  report[done].push(`view ${v.name}`);
}
