/**
 * The Bigtable twin (emulators/bigtable) in the local environment: run only when the settings
 * keep the send-once claims in Bigtable (`claims.store: bigtable`, #97), so the default costs
 * nothing. It gets a free loopback port, its data under `<data>/bigtable` (a restart keeps the
 * claims, as the Firestore twin's folder does), and with IAM on the access file the other twins
 * read, each workload on its own port (the roles `pulumi up` grants on the claims table,
 * infra/claims-bigtable.ts). Before the functions start, the plan's table, its family and the
 * family's GC rule are made through the table admin API, as `pulumi up` makes them: created when
 * missing, the rule set again when it differs, left alone otherwise.
 *
 * The admin messages are encoded by hand (field numbers of google/bigtable/admin/v2/
 * bigtable_table_admin.proto and table.proto) and sent with the claim store's own gRPC client:
 *
 * - CreateTableRequest { parent = 1; table_id = 2; table = 3 (Table) }
 * - GetTableRequest { name = 1; view = 2 (SCHEMA_VIEW = 2) } → Table
 * - ModifyColumnFamiliesRequest { name = 1; modifications = 2 { id = 1; create = 2; update = 3 } }
 * - Table { column_families = 3 (map<string, ColumnFamily>: entry { key = 1; value = 2 }) }
 * - ColumnFamily { gc_rule = 1 }; GcRule { max_age = 2 (Duration { seconds = 1; nanos = 2 }) }
 */
import { join } from 'node:path';
import { bytesField, fields, textField, varintField } from '../adapters/bigtable-wire.ts';
import { Code, createUnaryClient, GrpcError } from '../adapters/grpc-unary.ts';
import { WORKLOADS, type Workload, workloadMember } from '../core/access/needs.ts';
import type { BigtableClaimsPlan } from '../core/claims/claims-plan.ts';
import type { Plan } from '../core/plan.ts';
import { freePort } from './ports.ts';
import { LOCAL_HOST, type LocalBigtable, type LocalContext, type ServiceSpec } from './services.ts';

/** The service's name (its log file, its line in `start`'s output). */
export const BIGTABLE_SERVICE = 'bigtable';
const ADMIN = '/google.bigtable.admin.v2.BigtableTableAdmin';
const SCHEMA_VIEW = 2;

/**
 * The twin's ports when the plan keeps the claims in Bigtable (else undefined): its own, and with
 * IAM on one per workload.
 */
export async function localBigtable(p: Plan, iam: boolean): Promise<LocalBigtable | undefined> {
  if (p.claims.store !== 'bigtable') return undefined;
  const port = await freePort();
  if (!iam) return { port };
  const iamPorts = {} as Record<Workload, number>;
  for (const w of WORKLOADS) iamPorts[w] = await freePort();
  return { port, iamPorts };
}

/** The twin as a service of the emulator stage (ctx.bigtable names its ports). */
export function bigtableEmulator(ctx: LocalContext, bt: LocalBigtable): ServiceSpec {
  const iam = ctx.iam && bt.iamPorts ? { file: ctx.iam.file, ports: bt.iamPorts } : undefined;
  return {
    name: BIGTABLE_SERVICE,
    stage: 'emulator',
    command: ctx.node,
    args: [
      join(ctx.root, 'emulators', 'bigtable', 'main.ts'),
      '--host',
      LOCAL_HOST,
      '--port',
      String(bt.port),
      '--data-dir',
      join(ctx.dataDir, BIGTABLE_SERVICE),
      ...(iam
        ? [
            '--iam',
            iam.file,
            ...WORKLOADS.flatMap((w) => ['--identity', `${workloadMember(w, ctx.project)}=${iam.ports[w]}`]),
          ]
        : []),
    ],
    env: {},
    port: bt.port,
    // gRPC only: no URL a person opens; `host:port` is what BIGTABLE_EMULATOR_HOST takes.
    url: `http://${LOCAL_HOST}:${bt.port}`,
    // It listens once its protos are loaded and its log replayed: the port accepting is ready.
    readiness: { kind: 'tcp', port: bt.port },
    logFile: join(ctx.logDir, `${BIGTABLE_SERVICE}.log`),
    cwd: ctx.root,
  };
}

/** A ColumnFamily whose GC rule drops cells older than `seconds`. */
const family = (seconds: number): Buffer => bytesField(1, bytesField(2, varintField(1, seconds)));

export function encodeCreateTable(
  parent: string,
  tableId: string,
  name: string,
  maxAgeSeconds: number,
): Buffer {
  const entry = Buffer.concat([textField(1, name), bytesField(2, family(maxAgeSeconds))]);
  return Buffer.concat([textField(1, parent), textField(2, tableId), bytesField(3, bytesField(3, entry))]);
}

export const encodeGetTable = (table: string): Buffer =>
  Buffer.concat([textField(1, table), varintField(2, SCHEMA_VIEW)]);

export function encodeModifyFamily(
  table: string,
  name: string,
  maxAgeSeconds: number,
  how: 'create' | 'update',
): Buffer {
  const modification = Buffer.concat([
    textField(1, name),
    bytesField(how === 'create' ? 2 : 3, family(maxAgeSeconds)),
  ]);
  return Buffer.concat([textField(1, table), bytesField(2, modification)]);
}

/**
 * A Table's column families and each one's GC rule as a max age in whole seconds; a rule that is
 * anything else (none, versions, a union…) reads as undefined.
 */
export function familyMaxAges(table: Buffer): Map<string, number | undefined> {
  const out = new Map<string, number | undefined>();
  for (const f of fields(table, 'Table')) {
    if (f.field !== 3 || !f.bytes) continue;
    let name = '';
    let age: number | undefined;
    for (const e of fields(f.bytes, 'column family entry')) {
      if (e.field === 1 && e.bytes) name = e.bytes.toString('utf8');
      if (e.field !== 2 || !e.bytes) continue;
      const rule = fields(e.bytes, 'ColumnFamily').find((c) => c.field === 1)?.bytes;
      const parts = rule ? fields(rule, 'GcRule') : [];
      const maxAge = parts.length === 1 && parts[0]?.field === 2 ? parts[0].bytes : undefined;
      if (!maxAge) continue;
      const duration = fields(maxAge, 'Duration');
      if (duration.some((d) => d.field === 2 && d.n !== 0)) continue;
      age = duration.find((d) => d.field === 1)?.n ?? 0;
    }
    out.set(name, age);
  }
  return out;
}

/** What a provisioning step reports (local/provision.ts, ProvisionReport). */
interface Report {
  readonly created: string[];
  readonly updated: string[];
  readonly unchanged: string[];
}

/** The claims table, its family and GC rule (plan().claims.bigtable) in the twin at `hostPort`, as the owner. */
export async function provisionBigtableClaims(
  bt: BigtableClaimsPlan,
  project: string,
  hostPort: string,
  report: Report,
): Promise<void> {
  const client = createUnaryClient({ origin: `http://${hostPort}`, maxMessageBytes: 4 * 1024 * 1024 });
  const parent = `projects/${project}/instances/${bt.instance}`;
  const table = `${parent}/tables/${bt.table}`;
  const what = `bigtable table ${bt.instance}/${bt.table}`;
  const rule = `family ${bt.family}, max age ${bt.maxAgeSeconds} s`;
  const call = (method: string, body: Buffer) =>
    client.call({ path: `${ADMIN}/${method}`, body, deadline: Date.now() + 10_000 }).catch((err: unknown) => {
      if (err instanceof GrpcError && method === 'CreateTable' && err.code === Code.ALREADY_EXISTS)
        return undefined;
      throw new Error(`${method} ${table}: ${(err as Error).message}`, { cause: err });
    });
  try {
    const made = await call('CreateTable', encodeCreateTable(parent, bt.table, bt.family, bt.maxAgeSeconds));
    if (made) {
      report.created.push(`${what} (${rule})`);
      return;
    }
    const ages = familyMaxAges((await call('GetTable', encodeGetTable(table))) as Buffer);
    if (!ages.has(bt.family)) {
      await call('ModifyColumnFamilies', encodeModifyFamily(table, bt.family, bt.maxAgeSeconds, 'create'));
      report.created.push(`${what}: ${rule}`);
    } else if (ages.get(bt.family) !== bt.maxAgeSeconds) {
      await call('ModifyColumnFamilies', encodeModifyFamily(table, bt.family, bt.maxAgeSeconds, 'update'));
      report.updated.push(`${what}: ${rule}`);
    } else report.unchanged.push(`${what} (${rule})`);
  } finally {
    await client.close();
  }
}
