/**
 * Configuration of the functions and the gateway, read once at cold start from an explicit
 * `env` (docs/style.md: tests pass plain objects instead of mutating the process environment). Production and
 * local differ only in values: emulator hosts are read by Google's clients themselves.
 */
import type { Settings } from '../schemas/settings.ts';
import { type Plan, plan } from './plan.ts';
import { checkSettings, formatErrors } from './settings.ts';

/** Environment variables every entry point understands. */
export const ENV = Object.freeze({
  /** The environment's validated settings as JSON (no secret values, ever). */
  settings: 'EVENTBUS_SETTINGS',
  /** Folder of local secret files, one file per secret name (local environment only). */
  secretsDir: 'EVENTBUS_SECRETS_DIR',
  /** Where the gateway keeps token and write-key hashes: `file:<path>` or `secret:<name>`. */
  tokenStore: 'EVENTBUS_TOKEN_STORE',
  /** GCP project id, set by Cloud Run; falls back to the settings' project. */
  project: 'GOOGLE_CLOUD_PROJECT',
  /** The gateway's Google ID token audience (its own URL; set by Pulumi). */
  gatewayAudience: 'EVENTBUS_GATEWAY_AUDIENCE',
  /** `1`: take the client IP from X-Forwarded-For (always on under Cloud Run). */
  trustProxy: 'EVENTBUS_TRUST_PROXY',
  /** Publish calls the gateway keeps in flight at once (docs/gateway.md). */
  publishInFlight: 'EVENTBUS_PUBLISH_IN_FLIGHT',
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
});

export interface RuntimeConfig {
  readonly settings: Readonly<Settings>;
  readonly plan: Plan;
  readonly project: string;
  readonly secretsDir?: string;
  readonly tokenStore?: string;
}

/** Reads and validates the runtime configuration; throws one error listing every bad key. */
export function readRuntimeConfig(env: Readonly<Record<string, string | undefined>>): RuntimeConfig {
  const raw = env[ENV.settings];
  if (!raw) throw new Error(`${ENV.settings} is not set: it must hold the environment's settings as JSON`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new Error(`${ENV.settings} is not valid JSON: ${(err as Error).message}`);
  }
  const result = checkSettings(parsed);
  if (!result.ok) throw new Error(`${ENV.settings} is invalid:\n${formatErrors(result.errors)}`);
  const settings = result.settings;
  return Object.freeze({
    settings,
    plan: plan(settings),
    project: env[ENV.project] || settings.project,
    ...(env[ENV.secretsDir] ? { secretsDir: env[ENV.secretsDir] as string } : {}),
    ...(env[ENV.tokenStore] ? { tokenStore: env[ENV.tokenStore] as string } : {}),
  });
}
