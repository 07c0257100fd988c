/**
 * What the local environment runs, as data. Each service is a child process of the
 * supervisor, started with the same Node 24 binary (process.execPath), bound to 127.0.0.1.
 *
 * To add a service: write a factory `(ctx) => ServiceSpec` below (or use one of the slots)
 * and put it in SERVICES. Emulators start first; the supervisor provisions them from
 * plan(settings) before starting the `app` stage, so apps find their topics and tables.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Workload, workloadMember } from '../core/access/needs.ts';
import { PROJECT_NUMBER } from '../core/access/offline-project.ts';
import {
  CATALOG_ENTRY_POINT,
  CATALOG_FUNCTION,
  catalogDestinations,
} from '../core/deploy/catalog-function.ts';
import type { FunctionName } from '../core/plan.ts';
import type { Settings } from '../schemas/settings.ts';
import { LOCAL_BUNDLES, type LocalBundle } from './bundles.ts';

/** The local ports, one per service (docs/architecture.md §6, layout). */
export interface Ports {
  readonly pubsub: number;
  readonly bigquery: number;
  readonly storage: number;
  readonly firestore: number;
  readonly 'secret-manager': number;
  readonly gateway: number;
  readonly store: number;
  readonly forward: number;
  readonly schedule: number;
  /** forward-catalog (issue #65): pushed only when a catalogue destination exists. */
  readonly 'forward-catalog': number;
  readonly receiver: number;
  readonly studio: number;
}

export const DEFAULT_PORTS: Ports = Object.freeze({
  pubsub: 8085,
  bigquery: 9050,
  storage: 4443,
  firestore: 8086,
  'secret-manager': 8087,
  gateway: 8080,
  store: 8081,
  forward: 8082,
  schedule: 8083,
  'forward-catalog': 8084,
  receiver: 8099,
  studio: 8090,
});

export const LOCAL_HOST = '127.0.0.1';

/** How the supervisor knows a child is ready: a 200 on a URL, or a line on stdout. */
export type Readiness =
  | { readonly kind: 'http'; readonly url: string }
  | { readonly kind: 'tcp'; readonly port: number }
  | { readonly kind: 'line'; readonly pattern: RegExp };

export interface ServiceSpec {
  readonly name: string;
  /** `emulator` services start before provisioning, `app` services after it. */
  readonly stage: 'emulator' | 'app';
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the supervisor's own environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly port: number;
  /** The URL printed for people (and returned by startEnvironment). */
  readonly url: string;
  readonly readiness: Readiness;
  readonly logFile: string;
  readonly cwd: string;
  /**
   * A serverless instance (a function, the gateway): when it dies after it was ready, the
   * supervisor starts a new one in its place, as Cloud Functions and Cloud Run replace a crashed
   * instance, instead of stopping the environment. Absent: a death stops the environment.
   */
  readonly replaceable?: boolean;
  /**
   * The deployable this service is (local/bundles.ts): given its bundle's folder in the context
   * (`LocalContext.bundles`), it runs from that bundle, as on Google Cloud; else from its sources.
   */
  readonly bundle?: LocalBundle;
}

/** Everything a service factory may use. */
export interface LocalContext {
  readonly root: string;
  readonly dataDir: string;
  readonly logDir: string;
  readonly ports: Ports;
  readonly settings: Readonly<Settings>;
  readonly project: string;
  /** The Node binary children run on (the supervisor's own: Node 24). */
  readonly node: string;
  /** Origins the egress gate may reach besides the receiver (StartOptions.egressAllow). */
  readonly egressAllow?: readonly string[];
  /**
   * IAM enforced by the emulators (absent: off, every caller is the owner): the access file they
   * read, and each workload's own ports on each emulator, bound to its service account.
   */
  readonly iam?: LocalIam;
  /** The folder of each deployable's bundle the services run from (local/bundles.ts). */
  readonly bundles?: Readonly<Partial<Record<LocalBundle, string>>>;
  /** The Bigtable twin's ports, when the settings keep the claims in Bigtable (local/bigtable.ts). */
  readonly bigtable?: LocalBigtable;
}

/** Where the Bigtable twin listens: its own port, and with IAM on one per workload. */
export interface LocalBigtable {
  readonly port: number;
  readonly iamPorts?: Readonly<Record<Workload, number>>;
}

export type EmulatorName = 'pubsub' | 'bigquery' | 'storage' | 'firestore' | 'secret-manager';
/** What enforces IAM locally: the emulators, and the receiver over its traces (Cloud Trace's stand-in). */
export type IamService = EmulatorName | 'receiver';

export interface LocalIam {
  readonly file: string;
  readonly ports: Readonly<Record<Workload, Readonly<Record<IamService, number>>>>;
}

export type ServiceFactory = (ctx: LocalContext) => ServiceSpec;

const url = (port: number) => `http://${LOCAL_HOST}:${port}`;

/** The URL a push subscription uses for a function (functions-framework serves any path). */
export function functionUrl(ports: Ports, fn: FunctionName): string {
  return `${url(ports[fn])}/`;
}

/**
 * Where the supervisor writes the settings the services read once at start: a file, as on
 * Google Cloud (a mounted secret), never one environment variable (Cloud Run caps those at 32 KiB).
 */
export const settingsPath = (dataDir: string): string => join(dataDir, 'settings.json');

/** Writes the settings file the services' runtime env names; before any service starts. */
export function writeSettingsFile(ctx: Pick<LocalContext, 'dataDir' | 'settings'>): void {
  writeFileSync(settingsPath(ctx.dataDir), JSON.stringify(ctx.settings));
}

/**
 * The runtime env of the functions and the gateway (core/runtime-config.ts reads it). With IAM
 * on, `as` gets its own emulator endpoints: Google's clients send no credentials to an emulator,
 * so the port a workload calls is what tells the emulator which service account calls.
 */
export function runtimeEnv(ctx: LocalContext, as?: Workload): Record<string, string> {
  const own = as && ctx.iam ? ctx.iam.ports[as] : ctx.ports;
  return {
    EVENTBUS_SETTINGS_FILE: settingsPath(ctx.dataDir),
    EVENTBUS_TOKEN_STORE: `file:${join(ctx.dataDir, 'tokens.json')}`,
    // The egress gate's one exception locally: the receiver and its platform stand-ins, by origin.
    EVENTBUS_EGRESS_ALLOW: [
      url(ctx.ports.receiver),
      `http://localhost:${ctx.ports.receiver}`,
      ...(ctx.egressAllow ?? []),
    ].join(','),
    PUBSUB_EMULATOR_HOST: `${LOCAL_HOST}:${own.pubsub}`,
    BIGQUERY_EMULATOR_HOST: url(own.bigquery),
    STORAGE_EMULATOR_HOST: url(own.storage),
    // host:port, no scheme: the form Google's Firestore client reads (adapters/firestore-claims.ts too).
    FIRESTORE_EMULATOR_HOST: `${LOCAL_HOST}:${own.firestore}`,
    // The claims' other store, only when the settings choose it (adapters/environment-claims.ts).
    ...(ctx.bigtable
      ? {
          BIGTABLE_EMULATOR_HOST: `${LOCAL_HOST}:${(as && ctx.bigtable.iamPorts?.[as]) || ctx.bigtable.port}`,
        }
      : {}),
    // Secrets live in the Secret Manager emulator, read as in the cloud (adapters/secrets.ts).
    SECRET_MANAGER_EMULATOR_HOST: url(own['secret-manager']),
    GOOGLE_CLOUD_PROJECT: ctx.project,
    // Spans (and forward's metrics) go to the receiver's OTLP endpoint, as they go to the Telemetry
    // API in the cloud (with IAM on, the workload's own port there: its exporters send no
    // credentials to a local endpoint).
    EVENTBUS_TRACE_ENDPOINT: url(own.receiver),
    METADATA_SERVER_DETECTION: 'none',
    // The function's own account (no credentials secret) gets its tokens from the receiver's twin
    // of the metadata server's token endpoint (local/receiver/metadata.ts, adapters/google-oauth.ts).
    GCE_METADATA_HOST: `${LOCAL_HOST}:${ctx.ports.receiver}`,
    NODE_ENV: 'production',
  };
}

/** `--iam <file>` and one `--identity <member>=<port>` per workload, when IAM is on. */
function iamArgs(ctx: LocalContext, name: IamService): string[] {
  const iam = ctx.iam;
  if (!iam) return [];
  return [
    '--iam',
    iam.file,
    ...(Object.keys(iam.ports) as Workload[]).flatMap((w) => [
      '--identity',
      `${workloadMember(w, ctx.project)}=${iam.ports[w][name]}`,
    ]),
  ];
}

function emulator(ctx: LocalContext, name: EmulatorName): ServiceSpec {
  const port = ctx.ports[name];
  return {
    name,
    stage: 'emulator',
    command: ctx.node,
    args: [
      join(ctx.root, 'emulators', name, 'main.ts'),
      '--host',
      LOCAL_HOST,
      '--port',
      String(port),
      '--data-dir',
      join(ctx.dataDir, name),
      ...iamArgs(ctx, name),
    ],
    env: {},
    port,
    url: url(port),
    readiness: { kind: 'http', url: `${url(port)}/health` },
    logFile: join(ctx.logDir, `${name}.log`),
    cwd: ctx.root,
  };
}

/**
 * The project's Pub/Sub emulator (gRPC and REST), state in <data>/pubsub; BigQuery and Cloud
 * Storage subscriptions write into the local BigQuery and Storage emulators.
 */
export const pubsubEmulator: ServiceFactory = (ctx) => {
  const spec = emulator(ctx, 'pubsub');
  return {
    ...spec,
    args: [
      ...spec.args,
      '--bigquery-endpoint',
      url(ctx.ports.bigquery),
      '--storage-endpoint',
      url(ctx.ports.storage),
    ],
  };
};

/** The project's BigQuery emulator (REST over DuckDB), state in <data>/bigquery. */
export const bigqueryEmulator: ServiceFactory = (ctx) => emulator(ctx, 'bigquery');

/**
 * The project's Cloud Storage emulator (JSON API), state in <data>/storage; bucket notifications
 * publish to the local Pub/Sub emulator, as Cloud Storage's service agent.
 */
export const storageEmulator: ServiceFactory = (ctx) => {
  const spec = emulator(ctx, 'storage');
  return { ...spec, args: [...spec.args, '--pubsub-endpoint', url(ctx.ports.pubsub)] };
};

/** The project's Firestore emulator (REST API: the send-once claims), state in <data>/firestore. */
export const firestoreEmulator: ServiceFactory = (ctx) => emulator(ctx, 'firestore');

/**
 * The project's Secret Manager emulator (REST API: every secret value), state in
 * <data>/secret-manager. The local project has the number the program is declared with offline,
 * so the IAM conditions the access file carries (written with that number) match as in the cloud.
 */
export const secretManagerEmulator: ServiceFactory = (ctx) => {
  const spec = emulator(ctx, 'secret-manager');
  return { ...spec, args: [...spec.args, '--project-number', `${ctx.project}=${PROJECT_NUMBER}`] };
};

/**
 * A function served by the real functions-framework CLI (the same loader Cloud Functions
 * uses), from its bundle's folder when the context has one (what the deploy uploads), else from
 * its TypeScript source: Node 24 strips the types when the framework imports it.
 */
export function functionService(
  ctx: LocalContext,
  name: FunctionName,
  source?: string,
  target: string = name,
): ServiceSpec {
  const port = ctx.ports[name];
  // A deployable's own function runs from its bundle; a source given here (a test's) as it is.
  const bundle =
    source === undefined && (LOCAL_BUNDLES as readonly string[]).includes(name)
      ? (name as LocalBundle)
      : undefined;
  const built = bundle && ctx.bundles?.[bundle];
  return {
    name,
    stage: 'app',
    command: ctx.node,
    ...(bundle ? { bundle } : {}),
    args: [
      // The framework CLI has no host option: the preload makes it listen on 127.0.0.1 only.
      '--import',
      join(ctx.root, 'local', 'loopback.ts'),
      join(ctx.root, 'node_modules/@google-cloud/functions-framework/build/src/main.js'),
      '--target',
      target,
      '--source',
      built ?? source ?? join(ctx.root, 'functions', name, 'index.ts'),
      '--port',
      String(port),
      '--signature-type',
      'http',
    ],
    env: runtimeEnv(ctx, name),
    port,
    url: functionUrl(ctx.ports, name),
    // Every path of a function server runs the function: readiness is the port accepting.
    readiness: { kind: 'tcp', port },
    logFile: join(ctx.logDir, `${name}.log`),
    cwd: ctx.root,
    replaceable: true,
  };
}

/** Slot: the store function (functions/store/index.ts, target `store`) on 8081. */
export const storeFunction: ServiceFactory = (ctx) => functionService(ctx, 'store');

/** Slot: the forward function (functions/forward/index.ts, target `forward`) on 8082. */
export const forwardFunction: ServiceFactory = (ctx) => functionService(ctx, 'forward');

/**
 * The catalogue destinations' function (functions/forward-catalog/index.ts, target
 * `forwardCatalog`) on 8084: run only when a segment_action destination is configured (servicesFor).
 */
export const forwardCatalogFunction: ServiceFactory = (ctx) => {
  const spec = functionService(
    ctx,
    CATALOG_FUNCTION,
    join(ctx.root, 'functions', CATALOG_FUNCTION, 'index.ts'),
    CATALOG_ENTRY_POINT,
  );
  // Destinations without a base_url: judged by the gate as in the cloud, then captured (capture.ts).
  return {
    ...spec,
    env: { ...spec.env, EVENTBUS_CAPTURE_URL: `${url(ctx.ports.receiver)}/${CAPTURE_PREFIX}` },
  };
};

/** The scheduler's function (functions/schedule/index.ts, target `schedule`) on 8083. */
export const scheduleFunction: ServiceFactory = (ctx) => functionService(ctx, 'schedule');

/** `node <main>` of a deployable: its bundle's main.js when the context has it, else its source. */
function mainArgs(ctx: LocalContext, bundle: LocalBundle, source: string): string[] {
  const built = ctx.bundles?.[bundle];
  return [built ? join(built, 'main.js') : join(ctx.root, source)];
}

/** Slot: the gateway (gateway/main.ts, PORT) on 8080; run from its bundle as on Cloud Run. */
export const gateway: ServiceFactory = (ctx) => ({
  name: 'gateway',
  stage: 'app',
  bundle: 'gateway',
  command: ctx.node,
  args: mainArgs(ctx, 'gateway', 'gateway/main.ts'),
  env: { ...runtimeEnv(ctx, 'gateway'), HOST: LOCAL_HOST, PORT: String(ctx.ports.gateway) },
  port: ctx.ports.gateway,
  url: url(ctx.ports.gateway),
  readiness: { kind: 'http', url: `${url(ctx.ports.gateway)}/health` },
  logFile: join(ctx.logDir, 'gateway.log'),
  cwd: ctx.root,
  replaceable: true,
});

/** Slot: the local destination receiver (local/receiver/main.ts) on 8099. */
export const receiver: ServiceFactory = (ctx) => ({
  name: 'receiver',
  stage: 'app',
  command: ctx.node,
  args: [
    join(ctx.root, 'local', 'receiver', 'main.ts'),
    '--port',
    String(ctx.ports.receiver),
    // `eventbus connect --stand-in`'s registrations outlive a restart of the environment.
    '--oauth-clients',
    join(ctx.dataDir, 'oauth-clients.jsonl'),
    ...iamArgs(ctx, 'receiver'),
  ],
  env: { ...runtimeEnv(ctx), HOST: LOCAL_HOST, PORT: String(ctx.ports.receiver) },
  port: ctx.ports.receiver,
  url: url(ctx.ports.receiver),
  readiness: { kind: 'http', url: `${url(ctx.ports.receiver)}/health` },
  logFile: join(ctx.logDir, 'receiver.log'),
  cwd: ctx.root,
});

/** The admin token of the local studio (the CLI reads it from the same place). */
export const adminTokenFile = (dataDir: string): string => join(dataDir, 'admin-token');

/** The studio service (studio/main.ts): the registry's admin API, on 8090; run from its bundle. */
export const studio: ServiceFactory = (ctx) => ({
  name: 'studio',
  stage: 'app',
  bundle: 'studio',
  command: ctx.node,
  args: mainArgs(ctx, 'studio', 'studio/main.ts'),
  env: {
    ...runtimeEnv(ctx, 'studio'),
    HOST: LOCAL_HOST,
    PORT: String(ctx.ports.studio),
    EVENTBUS_ADMIN_TOKEN_FILE: adminTokenFile(ctx.dataDir),
    EVENTBUS_GATEWAY_URL: url(ctx.ports.gateway),
    // The waterfall reads traces through Cloud Trace's v1 API, which the receiver serves locally
    // (with IAM on, on the studio's own port: the reader sends no credentials to a local endpoint).
    CLOUD_TRACE_EMULATOR_HOST: url(ctx.iam ? ctx.iam.ports.studio.receiver : ctx.ports.receiver),
  },
  port: ctx.ports.studio,
  url: url(ctx.ports.studio),
  readiness: { kind: 'http', url: `${url(ctx.ports.studio)}/health` },
  logFile: join(ctx.logDir, 'studio.log'),
  cwd: ctx.root,
});

/**
 * The emulators every app service is pointed at (runtimeEnv names all five): Pub/Sub, BigQuery,
 * Cloud Storage, which holds the registry the gateway and the functions read, Firestore, which
 * holds the send-once claims, and Secret Manager, which holds every secret value.
 */
export const EMULATORS: readonly ServiceFactory[] = [
  pubsubEmulator,
  bigqueryEmulator,
  storageEmulator,
  firestoreEmulator,
  secretManagerEmulator,
];

/**
 * An environment running `apps`: the emulators first, then the apps in the order given. The
 * supervisor provisions the emulators (topics, tables, the registry bucket) before the apps
 * start. `npm start` runs every app; a benchmark runs the ones it measures, on the same footing.
 */
export function environmentOf(apps: readonly ServiceFactory[]): readonly ServiceFactory[] {
  return [...EMULATORS, ...apps];
}

/** What `npm start` runs, in start order. */
export const SERVICES: readonly ServiceFactory[] = environmentOf([
  receiver,
  storeFunction,
  forwardFunction,
  scheduleFunction,
  gateway,
  studio,
]);

/** What `npm start` runs for these settings: SERVICES, and forward-catalog when a catalogue destination exists. */
export function servicesFor(settings: Readonly<Settings>): readonly ServiceFactory[] {
  return catalogDestinations(settings).length > 0 ? [...SERVICES, forwardCatalogFunction] : SERVICES;
}

/**
 * Where a catalogue destination without a base_url is received locally: `<receiver>/capture`.
 * Its settings are not changed for that: forward-catalog is told the stand-in
 * (EVENTBUS_CAPTURE_URL), and its egress gate judges each request's real target first, exactly
 * as on Google Cloud, before the stand-in receives it (issue #98).
 */
export const CAPTURE_PREFIX = 'capture';

/**
 * Settings as the local services see them: destinations whose base_url points at the local
 * receiver's default address (and connections) follow the receiver when ports move (`--port-offset`, tests on
 * free ports), and so do `producers.origins` naming a local service's default port (the
 * receiver's test page, the gateway). Everything else is unchanged.
 */
export function localSettings(settings: Readonly<Settings>, ports: Ports): Readonly<Settings> {
  const from = url(DEFAULT_PORTS.receiver);
  const to = url(ports.receiver);
  const moved = (Object.keys(DEFAULT_PORTS) as (keyof Ports)[]).some((k) => DEFAULT_PORTS[k] !== ports[k]);
  if (!moved) return settings;
  const origins = settings.producers?.origins;
  return {
    ...settings,
    ...(settings.destinations
      ? {
          destinations: settings.destinations.map((d) =>
            d.base_url?.startsWith(from) ? { ...d, base_url: to + d.base_url.slice(from.length) } : d,
          ),
        }
      : {}),
    ...(settings.connections
      ? {
          connections: settings.connections.map((c) =>
            c.url?.startsWith(from) ? { ...c, url: to + c.url.slice(from.length) } : c,
          ),
        }
      : {}),
    ...(settings.producers && origins
      ? { producers: { ...settings.producers, origins: origins.map((o) => movedOrigin(o, ports)) } }
      : {}),
  };
}

/** `http://localhost:8099` → the receiver's current port; an origin elsewhere is unchanged. */
function movedOrigin(origin: string, ports: Ports): string {
  const m = /^(https?:\/\/(?:localhost|127\.0\.0\.1)):(\d+)$/.exec(origin);
  if (!m) return origin;
  const service = (Object.keys(DEFAULT_PORTS) as (keyof Ports)[]).find(
    (k) => DEFAULT_PORTS[k] === Number(m[2]),
  );
  return service ? `${m[1]}:${ports[service]}` : origin;
}
