/**
 * Configuration of the functions and the gateway, read once at cold start from an explicit
 * `env` (docs/style.md: tests pass plain objects instead of mutating the process environment). Production and
 * local differ only in values: emulator hosts are read by Google's clients themselves.
 *
 * The settings come from a file (EVENTBUS_SETTINGS_FILE), the same way for `npm start` (a file
 * in the data folder) and on Google Cloud (a Secret Manager secret mounted as a file), because
 * Cloud Run caps an environment variable's value at 32 KiB and settings with many destinations
 * or connections outgrow it. EVENTBUS_SETTINGS (the JSON itself) stays for tests and benches.
 * The core reads no file: the entry point hands over its reader.
 */
import type { Settings } from '../schemas/settings.ts';
import { type AllowList, parseAllowList } from './egress/policy.ts';
import { type Plan, plan } from './plan.ts';
import { checkSettings, formatErrors } from './settings.ts';

/**
 * Every environment variable a deployable (the gateway, the studio, the three functions) reads:
 * entry points hand the process environment over whole and read it through these names only
 * (the architecture test refuses any other read).
 */
export const ENV = Object.freeze({
  /** The environment's validated settings as JSON (no secret values, ever); tests and benches. */
  settings: 'EVENTBUS_SETTINGS',
  /** A file holding the settings as JSON: how `npm start` and Google Cloud deliver them. */
  settingsFile: 'EVENTBUS_SETTINGS_FILE',
  /** Folder of local secret files, one file per secret name (local environment only). */
  secretsDir: 'EVENTBUS_SECRETS_DIR',
  /**
   * Secret Manager's REST API at this URL instead of secretmanager.googleapis.com, without Google
   * credentials (locally: the Secret Manager emulator, on the workload's own identity port).
   */
  secretManagerEmulatorHost: 'SECRET_MANAGER_EMULATOR_HOST',
  /** Where the gateway keeps token and write-key hashes: `file:<path>` or `secret:<name>`. */
  tokenStore: 'EVENTBUS_TOKEN_STORE',
  /** GCP project id, set by Cloud Run; falls back to the settings' project. */
  project: 'GOOGLE_CLOUD_PROJECT',
  /** The gateway's Google ID token audience (its own URL; set by Pulumi). */
  gatewayAudience: 'EVENTBUS_GATEWAY_AUDIENCE',
  /** `1`: take the client IP from X-Forwarded-For (always on under Cloud Run). */
  trustProxy: 'EVENTBUS_TRUST_PROXY',
  /** The secret an edge proxy in front of the gateway sends in X-Eventbus-Edge (docs/browser.md#same-origin-path). */
  edgeSecret: 'EVENTBUS_EDGE_SECRET',
  /** The base of cookieless pages' daily salts (docs/browser.md#cookieless). */
  sessionSalt: 'EVENTBUS_SESSION_SALT',
  /** Publish calls the gateway keeps in flight at once (docs/gateway.md). */
  publishInFlight: 'EVENTBUS_PUBLISH_IN_FLIGHT',
  /** How long a Publish call in flight holds the next one back, in milliseconds (docs/gateway.md). */
  publishHoldMs: 'EVENTBUS_PUBLISH_HOLD_MS',
  /** The gateway: how old its copy of the registry may grow before it is read again, in milliseconds (docs/registry.md#reading). */
  registryMaxAgeMs: 'EVENTBUS_REGISTRY_MAX_AGE_MS',
  /** How long one publish may take in all, retries included, in milliseconds. */
  publishTimeoutMs: 'EVENTBUS_PUBLISH_TIMEOUT_MS',
  /** The Pub/Sub emulator's host:port (read by Google's clients too). */
  pubsubEmulatorHost: 'PUBSUB_EMULATOR_HOST',
  /** Set by Cloud Run: the service's name. */
  cloudRunService: 'K_SERVICE',
  /** The port to listen on (Cloud Run sets it). */
  port: 'PORT',
  /** The address to listen on (default 127.0.0.1 locally, 0.0.0.0 under Cloud Run). */
  host: 'HOST',
  /** `off`: the gateway keeps no refusal records for live events (docs/console.md#live-events). */
  liveEvents: 'EVENTBUS_LIVE_EVENTS',
  /** The Firestore emulator's host:port (the claims: adapters/firestore-claims.ts; Google's client reads it too). */
  firestoreEmulatorHost: 'FIRESTORE_EMULATOR_HOST',
  /**
   * The Bigtable emulator's host:port, for the claims when the settings choose `claims.store:
   * bigtable` (adapters/bigtable-claims.ts; Google's client reads the same name). Unset on Google Cloud.
   */
  bigtableEmulatorHost: 'BIGTABLE_EMULATOR_HOST',
  /** The BigQuery emulator's URL (read by Google's clients too; the gateway's refusal records). */
  bigqueryEmulatorHost: 'BIGQUERY_EMULATOR_HOST',
  /** The studio: the file holding its admin token (created with a random value when missing). */
  adminTokenFile: 'EVENTBUS_ADMIN_TOKEN_FILE',
  /** The studio: the gateway's URL, for the creator's live translator endpoints. */
  gatewayUrl: 'EVENTBUS_GATEWAY_URL',
  /** The studio: the IAP audience whose signed header is a credential (set by Pulumi). */
  iapAudience: 'EVENTBUS_IAP_AUDIENCE',
  /** The studio: comma-separated origins to take as its own behind a proxy that rewrites Host. */
  studioOrigins: 'EVENTBUS_STUDIO_ORIGINS',
  /**
   * The egress gate's allow-list (adapters/egress.ts): origins, comma-separated, sent to as they
   * are (http, loopback). Locally the supervisor lists its stand-ins; unset on Google Cloud.
   */
  egressAllow: 'EVENTBUS_EGRESS_ALLOW',
  /**
   * The gateway: signing certificates (SNS's, PayPal's) fetched from this origin, path kept,
   * once the sender's URL was pinned to the vendor's hosts (gateway/signing-certificates.ts);
   * a stand-in in tests, unset on Google Cloud.
   */
  certificateOrigin: 'EVENTBUS_CERTIFICATE_ORIGIN',
  /**
   * forward-catalog: the capturing stand-in (`<receiver>/capture`) that receives, locally, the
   * requests of catalogue destinations without a base_url once the egress gate judged their real
   * target (adapters/egress.ts, `capture`); unset on Google Cloud.
   */
  captureUrl: 'EVENTBUS_CAPTURE_URL',
  /**
   * The metadata server's host:port where it is not Google's own address (google-auth-library
   * reads the same name): locally the receiver's twin, which answers a function's own token.
   * Unset on Google Cloud.
   */
  metadataHost: 'GCE_METADATA_HOST',
  /** `store`: the micro-batch window in milliseconds (the default suits most loads). */
  storeBatchMs: 'EVENTBUS_STORE_BATCH_MS',
  /**
   * `forward`, `forward-catalog`: the first fan-out's window in milliseconds (core/claims/send-once.ts,
   * default FIRST_WINDOW_MS, 2 minutes): how long after it is published a first fan-out's message
   * sends without a claim, and so how long a copy waits for it. Every forward instance must be
   * given the same value; tests shorten it instead of waiting it out. Unset on Google Cloud.
   */
  firstWindowMs: 'EVENTBUS_FIRST_WINDOW_MS',
  /**
   * The OTLP/HTTP base URL spans are exported to (docs/observability.md), and the delivery
   * functions' metrics (`/v1/metrics`): Google's Telemetry API, `https://telemetry.googleapis.com`
   * (set by Pulumi), locally the supervisor's receiver; unset, spans are made and their context
   * carried, but nothing is exported, and no metric is recorded.
   */
  traceEndpoint: 'EVENTBUS_TRACE_ENDPOINT',
  /**
   * When a deployable's spans leave (docs/observability.md, "Spans leave before the answer"):
   * `answer`, with the answer (before it where the hop's spans are made before it, started at once
   * where they are made with it, the gateway's), for an instance whose CPU is throttled once it
   * has answered; `timer`, on the export queue's timer (5 s), for one whose CPU is always
   * allocated. Unset or anything else: `answer`. Either way a SIGTERM exports what is queued.
   * Pulumi sets it on every deployable that traces (infra/runtime-env.ts), and the policy
   * `eventbus-trace-flush` refuses `timer` or nothing on a request-billed one.
   */
  traceFlush: 'EVENTBUS_TRACE_FLUSH',
  /**
   * The studio: Cloud Trace API v1 at this URL instead of cloudtrace.googleapis.com, without
   * Google credentials (locally: the receiver, which serves the same API; adapters/trace-reader.ts).
   */
  cloudTraceEmulatorHost: 'CLOUD_TRACE_EMULATOR_HOST',
});

export interface RuntimeConfig {
  readonly settings: Readonly<Settings>;
  readonly plan: Plan;
  readonly project: string;
  readonly secretsDir?: string;
  /** SECRET_MANAGER_EMULATOR_HOST (a URL), where Secret Manager is called locally. */
  readonly secretManager?: string;
  readonly tokenStore?: string;
  /** EVENTBUS_TRACE_ENDPOINT: where spans are exported (OTLP/HTTP); absent: not exported. */
  readonly traceEndpoint?: string;
  /** EVENTBUS_TRACE_FLUSH: when spans leave; `answer` unless it says `timer`. */
  readonly traceFlush: TraceFlush;
}

/** When a deployable's spans leave: with each answer, or on the export queue's timer. */
export type TraceFlush = 'answer' | 'timer';

/** EVENTBUS_TRACE_FLUSH as a process reads it: `timer` only when it says so, else `answer` (the safe one). */
export const traceFlushOf = (env: Readonly<Record<string, string | undefined>>): TraceFlush =>
  env[ENV.traceFlush] === 'timer' ? 'timer' : 'answer';

/** Reads a text file (the entry point's `readFileSync`); the core itself does no I/O. */
export type ReadText = (path: string) => string;

/**
 * Reads and validates the runtime configuration; throws one error listing every bad key. The
 * settings come from EVENTBUS_SETTINGS_FILE (read with `readText`) or else EVENTBUS_SETTINGS.
 */
export function readRuntimeConfig(
  env: Readonly<Record<string, string | undefined>>,
  readText?: ReadText,
): RuntimeConfig {
  const { raw, from } = settingsText(env, readText);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new Error(`${from} is not valid JSON: ${(err as Error).message}`);
  }
  const result = checkSettings(parsed);
  if (!result.ok) throw new Error(`${from} is invalid:\n${formatErrors(result.errors)}`);
  const settings = result.settings;
  return Object.freeze({
    settings,
    plan: plan(settings),
    project: env[ENV.project] || settings.project,
    ...(env[ENV.secretsDir] ? { secretsDir: env[ENV.secretsDir] as string } : {}),
    ...(env[ENV.secretManagerEmulatorHost]
      ? { secretManager: env[ENV.secretManagerEmulatorHost] as string }
      : {}),
    ...(env[ENV.tokenStore] ? { tokenStore: env[ENV.tokenStore] as string } : {}),
    ...(env[ENV.traceEndpoint] ? { traceEndpoint: env[ENV.traceEndpoint] as string } : {}),
    traceFlush: traceFlushOf(env),
  });
}

/** Where a server listens: HOST (loopback unless told otherwise) and PORT. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** HOST and PORT: 127.0.0.1 unless HOST says otherwise (Cloud Run is told 0.0.0.0), `port` unless PORT is set. */
export function listenAddress(env: Readonly<Record<string, string | undefined>>, port = 8080): ListenAddress {
  const raw = env[ENV.port];
  const n = raw === undefined || raw === '' ? port : Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new Error(`${ENV.port} is not a port: ${raw}`);
  return Object.freeze({ host: env[ENV.host] ?? '127.0.0.1', port: n });
}

/**
 * Everything a function (`store`, `forward`, `schedule`) reads from its environment: its entry
 * module makes this one call at cold start and passes the frozen value down (an architecture
 * test, test/unit/runtime-config.test.ts, refuses any other read of the process environment).
 */
export interface FunctionConfig extends RuntimeConfig {
  /** `store`: the micro-batch window in milliseconds; absent: the writer's default. */
  readonly storeBatchMs?: number;
  /** `forward`: the first fan-out's window in milliseconds; absent: FIRST_WINDOW_MS (core/claims/send-once.ts). */
  readonly firstWindowMs?: number;
  /** The Pub/Sub emulator's host:port, for a publisher the function builds itself (locally). */
  readonly pubsubEmulatorHost?: string;
  /** The Firestore emulator's host:port, for the claims (core/claims/claim-store.ts), locally. */
  readonly firestoreEmulatorHost?: string;
  /** The Bigtable emulator's host:port, for the claims when the plan keeps them there, locally. */
  readonly bigtableEmulatorHost?: string;
  /** Where the function listens when it runs as a Cloud Run service (functions/serve.ts). */
  readonly listen: ListenAddress;
  /** Origins the egress gate sends to without its checks (EVENTBUS_EGRESS_ALLOW; empty on Google Cloud). */
  readonly egressAllow: AllowList;
  /** EVENTBUS_CAPTURE_URL: the local capturing stand-in of catalogue requests; absent on Google Cloud. */
  readonly captureUrl?: string;
  /** GCE_METADATA_HOST: the metadata server named where it is not Google's (locally); absent on Google Cloud. */
  readonly metadataHost?: string;
  /**
   * The environment as a source of secret values by name (adapters/secrets.ts: locally a secret
   * may be a variable with its name). Secrets only: configuration is read through the fields above.
   */
  readonly secretEnv: Readonly<Record<string, string | undefined>>;
}

/** Reads a function's configuration once (readRuntimeConfig, then its own variables); frozen. */
export function readFunctionConfig(
  env: Readonly<Record<string, string | undefined>>,
  readText?: ReadText,
): FunctionConfig {
  const batch = env[ENV.storeBatchMs];
  const storeBatchMs = batch ? Number(batch) : undefined;
  if (storeBatchMs !== undefined && !(storeBatchMs >= 0))
    throw new Error(`${ENV.storeBatchMs} is not a number of milliseconds: ${batch}`);
  const window = env[ENV.firstWindowMs];
  const firstWindowMs = window ? Number(window) : undefined;
  if (firstWindowMs !== undefined && !(Number.isInteger(firstWindowMs) && firstWindowMs > 0))
    throw new Error(`${ENV.firstWindowMs} is not a whole number of milliseconds above 0: ${window}`);
  const emulator = env[ENV.pubsubEmulatorHost];
  const firestore = env[ENV.firestoreEmulatorHost];
  const bigtable = env[ENV.bigtableEmulatorHost];
  return Object.freeze({
    ...readRuntimeConfig(env, readText),
    ...(storeBatchMs !== undefined ? { storeBatchMs } : {}),
    ...(firstWindowMs !== undefined ? { firstWindowMs } : {}),
    ...(emulator ? { pubsubEmulatorHost: emulator } : {}),
    ...(firestore ? { firestoreEmulatorHost: firestore } : {}),
    ...(bigtable ? { bigtableEmulatorHost: bigtable } : {}),
    listen: listenAddress(env),
    egressAllow: parseAllowList(env[ENV.egressAllow], ENV.egressAllow),
    ...(env[ENV.captureUrl] ? { captureUrl: env[ENV.captureUrl] as string } : {}),
    ...(env[ENV.metadataHost] ? { metadataHost: env[ENV.metadataHost] as string } : {}),
    secretEnv: env,
  });
}

/** The settings' JSON text and where it came from (for error messages). */
function settingsText(
  env: Readonly<Record<string, string | undefined>>,
  readText: ReadText | undefined,
): { raw: string; from: string } {
  const file = env[ENV.settingsFile];
  if (file) {
    const from = `${ENV.settingsFile} (${file})`;
    if (!readText) throw new Error(`${from} is set, but this entry point reads no files`);
    try {
      return { raw: readText(file), from };
    } catch (err) {
      throw new Error(`${from} cannot be read: ${(err as Error).message}`);
    }
  }
  const raw = env[ENV.settings];
  if (!raw)
    throw new Error(
      `neither ${ENV.settingsFile} nor ${ENV.settings} is set: one must give the environment's settings as JSON`,
    );
  return { raw, from: ENV.settings };
}
