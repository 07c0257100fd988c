/**
 * The environment a CLI command works on: its settings file, plan() and the endpoints of
 * its warehouse and bus. The settings validators and Google's clients are imported on first
 * use, inside the command that needs them: loading them all up front cost every command,
 * `--help` included, seconds of start-up.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import type { PubSub } from '@google-cloud/pubsub';
import type { Plan } from '../core/plan.ts';
import { DEFAULT_PORTS, LOCAL_HOST } from '../local/services.ts';
import type { Settings } from '../schemas/settings.ts';
import { CliError } from './output.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** A settings file read and validated, and the path it came from. */
export interface EnvironmentSettings {
  readonly path: string;
  readonly settings: Readonly<Settings>;
}

/** Reads an environment's settings (`local` → environments/local.yaml, or a path); bad keys are a CliError. */
export async function readEnvironment(nameOrPath: string): Promise<EnvironmentSettings> {
  const { environmentFile, readSettingsFile, SettingsFileError } = await import('../local/settings-file.ts');
  const path = environmentFile(nameOrPath);
  try {
    return { path, settings: readSettingsFile(path) };
  } catch (err) {
    if (err instanceof SettingsFileError) throw new CliError(err.message);
    throw err;
  }
}

/** The environment's settings and plan, for commands that take `--env`. */
export async function loadEnvironment(nameOrPath: string): Promise<EnvironmentSettings & { plan: Plan }> {
  const [environment, { plan }] = await Promise.all([readEnvironment(nameOrPath), import('../core/plan.ts')]);
  return { ...environment, plan: plan(environment.settings) };
}

/** The GCP project commands talk to: GOOGLE_CLOUD_PROJECT, else the settings' project. */
export function projectOf(p: Plan, env: Env): string {
  return env['GOOGLE_CLOUD_PROJECT'] || p.project;
}

/**
 * Where BigQuery is: BIGQUERY_EMULATOR_HOST when set; the local emulator's default port for
 * the `local` environment; otherwise BigQuery itself (Application Default Credentials).
 */
export function warehouseEndpoint(p: Plan, env: Env): string | undefined {
  const host = env['BIGQUERY_EMULATOR_HOST'];
  if (host) return host;
  return p.environment === 'local' ? `http://${LOCAL_HOST}:${DEFAULT_PORTS.bigquery}` : undefined;
}

/** Where Pub/Sub is: PUBSUB_EMULATOR_HOST; the local emulator for `local`; otherwise Google. */
export function pubsubEndpoint(p: Plan, env: Env): string | undefined {
  const host = env['PUBSUB_EMULATOR_HOST'];
  if (host) return host;
  return p.environment === 'local' ? `${LOCAL_HOST}:${DEFAULT_PORTS.pubsub}` : undefined;
}

/** A Pub/Sub client for the environment's project and endpoint (plaintext to an emulator). */
export async function pubsubClient(p: Plan, env: Env): Promise<PubSub> {
  const { PubSub } = await import('@google-cloud/pubsub');
  const host = pubsubEndpoint(p, env);
  return new PubSub({
    projectId: projectOf(p, env),
    ...(host ? { apiEndpoint: host, emulatorMode: true } : {}),
  });
}

/** A BigQuery client for the environment's project and endpoint. */
export async function warehouseClient(p: Plan, env: Env): Promise<BigQuery> {
  const project = projectOf(p, env);
  const endpoint = warehouseEndpoint(p, env);
  if (endpoint) {
    const { emulatorBigQuery } = await import('../local/emulator-bigquery.ts');
    // An emulator answers or is not running: the client's retries only delayed the error
    // (~16 s for a refused connection) without a chance of success.
    return emulatorBigQuery(project, endpoint, { autoRetry: false });
  }
  const { BigQuery } = await import('@google-cloud/bigquery');
  return new BigQuery({ projectId: project });
}
