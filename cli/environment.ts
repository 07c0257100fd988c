/**
 * The environment a CLI command works on: its settings file, plan() and the endpoints of
 * its warehouse and bus. The settings validators and Google's clients are imported on first
 * use, inside the command that needs them: loading them all up front cost every command,
 * `--help` included, seconds of start-up.
 */

import { join, resolve } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import type { PubSub } from '@google-cloud/pubsub';
import type { Storage } from '@google-cloud/storage';
import type { Plan } from '../core/plan.ts';
import type { Settings } from '../schemas/settings.ts';
import { CliError } from './output.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** Help text for commands that talk to the local environment's emulators. */
export const LOCAL_ENDPOINT_HELP = [
  'Local environment: found through <data-dir>/environment.json, written by `eventbus start`',
  '(same --data-dir, default .data), so --port-offset and other ports are followed.',
  'PUBSUB_EMULATOR_HOST, BIGQUERY_EMULATOR_HOST and GOOGLE_CLOUD_PROJECT win when set.',
].join('\n');

/** `--data-dir`, as `start` takes it. */
export const DATA_DIR_OPTION: readonly [string, string] = [
  '--data-dir <dir>',
  'local state directory of the environment, as given to start (default .data)',
];

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

/** Where a started local environment is recorded: `--data-dir`, default <repo>/.data, as for `start`. */
async function localRecord(dataDir: string | undefined) {
  const [{ readEnvironmentRecord, recordPath }, { REPO_ROOT }] = await Promise.all([
    import('../local/environment-record.ts'),
    import('../local/settings-file.ts'),
  ]);
  const dir = resolve(dataDir ?? join(REPO_ROOT, '.data'));
  const found = readEnvironmentRecord(dir);
  if (found.state === 'running') return found.record;
  const hint = `start it (npm start${dataDir ? ` -- --data-dir ${dataDir}` : ''}), pass the --data-dir it uses, or set PUBSUB_EMULATOR_HOST and BIGQUERY_EMULATOR_HOST`;
  if (found.state === 'stale')
    throw new CliError(
      `the local environment recorded in ${recordPath(dir)} (pid ${found.record.pid}) is not running: ${hint}`,
    );
  throw new CliError(`no local environment is running with data dir ${dir}: ${hint}`);
}

/**
 * Where BigQuery is: BIGQUERY_EMULATOR_HOST when set; for the `local` environment, the
 * emulator that `start` recorded in the data dir; otherwise BigQuery itself (Application
 * Default Credentials).
 */
export async function warehouseEndpoint(p: Plan, env: Env, dataDir?: string): Promise<string | undefined> {
  const host = env['BIGQUERY_EMULATOR_HOST'];
  if (host) return host;
  return p.environment === 'local' ? (await localRecord(dataDir)).bigqueryUrl : undefined;
}

/** Where Pub/Sub is: PUBSUB_EMULATOR_HOST; for `local`, the recorded emulator; otherwise Google. */
export async function pubsubEndpoint(p: Plan, env: Env, dataDir?: string): Promise<string | undefined> {
  const host = env['PUBSUB_EMULATOR_HOST'];
  if (host) return host;
  return p.environment === 'local' ? (await localRecord(dataDir)).pubsubHost : undefined;
}

/** Where the claims database is: FIRESTORE_EMULATOR_HOST; for `local`, the recorded emulator; otherwise Google. */
export async function firestoreEndpoint(p: Plan, env: Env, dataDir?: string): Promise<string | undefined> {
  const host = env['FIRESTORE_EMULATOR_HOST'];
  if (host) return host;
  return p.environment === 'local' ? (await localRecord(dataDir)).firestoreHost : undefined;
}

/**
 * Where the claims' Bigtable instance is (with `claims.store: bigtable`): BIGTABLE_EMULATOR_HOST;
 * for `local`, the emulator `start` recorded; otherwise Google.
 */
export async function bigtableEndpoint(p: Plan, env: Env, dataDir?: string): Promise<string | undefined> {
  const host = env['BIGTABLE_EMULATOR_HOST'];
  if (host) return host;
  if (p.environment !== 'local') return undefined;
  const recorded = (await localRecord(dataDir)).bigtableHost;
  if (!recorded)
    throw new CliError('the running local environment records no Bigtable emulator: restart it (npm start)');
  return recorded;
}

/** A Pub/Sub client for the environment's project and endpoint (plaintext to an emulator). */
export async function pubsubClient(p: Plan, env: Env, dataDir?: string): Promise<PubSub> {
  const host = await pubsubEndpoint(p, env, dataDir);
  const { PubSub } = await import('@google-cloud/pubsub');
  return new PubSub({
    projectId: projectOf(p, env),
    // The universe is given for an emulator: left open, the gRPC client asks the credentials
    // for theirs, which looks for Application Default Credentials and probes the GCE metadata
    // server (a MetadataLookupWarning and seconds lost, off Google Cloud).
    ...(host ? { apiEndpoint: host, emulatorMode: true, universeDomain: 'googleapis.com' } : {}),
  });
}

/**
 * A Cloud Storage client for the environment: STORAGE_EMULATOR_HOST when set (the client reads
 * it); for `local`, the emulator `start` recorded; otherwise Google (Application Default
 * Credentials).
 */
export async function storageClient(p: Plan, env: Env, dataDir?: string): Promise<Storage> {
  const { Storage } = await import('@google-cloud/storage');
  const project = projectOf(p, env);
  if (env['STORAGE_EMULATOR_HOST'] || p.environment !== 'local') return new Storage({ projectId: project });
  const url = (await localRecord(dataDir)).storageUrl;
  if (!url)
    throw new CliError('the running local environment records no Storage emulator: restart it (npm start)');
  return new Storage({ projectId: project, apiEndpoint: url });
}

/** A BigQuery client for the environment's project and endpoint. */
export async function warehouseClient(p: Plan, env: Env, dataDir?: string): Promise<BigQuery> {
  const project = projectOf(p, env);
  const endpoint = await warehouseEndpoint(p, env, dataDir);
  if (endpoint) {
    const { emulatorBigQuery } = await import('../local/emulator-bigquery.ts');
    // An emulator answers or is not running: the client's retries only delayed the error
    // (~16 s for a refused connection) without a chance of success.
    return emulatorBigQuery(project, endpoint, { autoRetry: false });
  }
  const { BigQuery } = await import('@google-cloud/bigquery');
  return new BigQuery({ projectId: project });
}

/** Where the studio's admin API is, and the bearer token to call it with. */
export interface StudioEndpoint {
  readonly url: string;
  readonly token: string;
}

/**
 * Which credential the CLI calls a studio at EVENTBUS_STUDIO_URL with: the admin token
 * (EVENTBUS_ADMIN_TOKEN, a local or self-run studio), else a Google ID token given as is
 * (EVENTBUS_ID_TOKEN), else one minted from Application Default Credentials for the audience
 * EVENTBUS_STUDIO_AUDIENCE (default: the URL). A studio behind IAP takes the last two.
 */
export type StudioCredential =
  | { readonly kind: 'admin-token'; readonly token: string }
  | { readonly kind: 'id-token'; readonly token: string }
  | { readonly kind: 'google'; readonly audience: string };

export function studioCredential(env: Env, url: string): StudioCredential {
  const admin = env['EVENTBUS_ADMIN_TOKEN'];
  if (admin) return { kind: 'admin-token', token: admin };
  const given = env['EVENTBUS_ID_TOKEN'];
  if (given) return { kind: 'id-token', token: given };
  return { kind: 'google', audience: env['EVENTBUS_STUDIO_AUDIENCE'] || url };
}

/** Mints a Google ID token for an audience (google-auth-library, Application Default Credentials). */
export type IdTokenMinter = (audience: string) => Promise<string>;

const googleIdToken: IdTokenMinter = async (audience) => {
  const { GoogleAuth } = await import('google-auth-library');
  const client = await new GoogleAuth().getIdTokenClient(audience);
  return client.idTokenProvider.fetchIdToken(audience);
};

/**
 * The studio: EVENTBUS_STUDIO_URL with the credential studioCredential() picks; otherwise the
 * local environment's studio, recorded by `start` in the data dir, with the admin token `start`
 * keeps beside it (<data-dir>/admin-token).
 */
export async function studioEndpoint(
  env: Env,
  dataDir?: string,
  mint: IdTokenMinter = googleIdToken,
): Promise<StudioEndpoint> {
  const url = env['EVENTBUS_STUDIO_URL'];
  if (url) {
    const credential = studioCredential(env, url);
    if (credential.kind !== 'google') return { url, token: credential.token };
    try {
      return { url, token: await mint(credential.audience) };
    } catch (err) {
      throw new CliError(
        [
          `cannot get a Google ID token for ${credential.audience} from Application Default Credentials (${(err as Error).message}).`,
          'User credentials from `gcloud auth application-default login` cannot mint one, and IAP',
          "with Google's managed client refuses a person's own gcloud token: impersonate an operator",
          'account listed in studio.editors (no key file needed, docs/deploy.md):',
          `  export EVENTBUS_ID_TOKEN=$(gcloud auth print-identity-token --impersonate-service-account=<operator> --audiences=${credential.audience} --include-email)`,
          'or set EVENTBUS_ADMIN_TOKEN for a studio that takes one (docs/studio.md).',
        ].join('\n'),
      );
    }
  }
  const record = await localRecord(dataDir);
  const studio = record.urls['studio'];
  if (!studio)
    throw new CliError('the running local environment has no studio: restart it with this version');
  const [{ REPO_ROOT }, { readFileSync }] = await Promise.all([
    import('../local/settings-file.ts'),
    import('node:fs'),
  ]);
  const file = join(resolve(dataDir ?? join(REPO_ROOT, '.data')), 'admin-token');
  try {
    return { url: studio, token: readFileSync(file, 'utf8').trim() };
  } catch {
    throw new CliError(`cannot read the local admin token ${file}`);
  }
}
