/**
 * Starts the local environment as a user does (`eventbus start`, the command `npm start` runs)
 * as a child process, every service on a free port, and waits for its development token.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSecret } from '../../local/local-secrets.ts';
import { freePort } from '../../local/ports.ts';
import { DEFAULT_PORTS } from '../../local/services.ts';
import { until } from './until.ts';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface StartedLocal {
  readonly child: ChildProcess;
  readonly dataDir: string;
  readonly ports: Readonly<Record<string, number>>;
  /** Everything the command printed so far. */
  output(): string;
}

export async function startLocalCli(options: {
  readonly prefix: string;
  /** Writes a settings file into the data dir and returns its path (default: `local`). */
  readonly settings?: (dataDir: string) => string;
  readonly env?: Readonly<Record<string, string>>;
  /** Start again on an earlier run's data dir and ports (a restart, as a user would). */
  readonly again?: { readonly dataDir: string; readonly ports: Readonly<Record<string, number>> };
}): Promise<StartedLocal> {
  const dataDir = options.again?.dataDir ?? mkdtempSync(join(tmpdir(), options.prefix));
  const ports: Record<string, number> = { ...options.again?.ports };
  if (!options.again) for (const name of Object.keys(DEFAULT_PORTS)) ports[name] = await freePort();
  const args = [join(REPO, 'cli', 'main.ts'), 'start', '--data-dir', dataDir];
  if (options.settings) args.push('--env', options.settings(dataDir));
  for (const [name, port] of Object.entries(ports)) args.push('--port', `${name}=${port}`);
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => {
    output += b.toString();
  });
  child.stderr?.on('data', (b: Buffer) => {
    output += b.toString();
  });
  try {
    await until(
      'the development token',
      async () => {
        if (child.exitCode !== null) throw new Error(`start exited early:\n${output}`);
        return /development token/.test(output) && existsSync(join(dataDir, 'dev-token')) ? true : undefined;
      },
      // A start takes about 20 CPU-s; beside the whole suite on 2 cores (load 15) one took over
      // 90 s. The bound is for a start that hangs, not a slow one.
      180_000,
    );
  } catch (e) {
    // A start that did not come up in time still has its emulators and functions running, each in
    // its own process group: left alone they outlive the test and load every test after it.
    await stopStarted(child);
    throw e;
  }
  return { child, dataDir, ports, output: () => output };
}

/** Ctrl-C as a user would, and SIGKILL of the command if it has not stopped everything in 20 s. */
async function stopStarted(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await gone;
  clearTimeout(timer);
}

/** Stops what startLocalCli started (SIGINT, as a user would) and removes its data dir unless KEEP is set. */
export async function stopLocal(child: ChildProcess | undefined, dataDir: string): Promise<void> {
  if (child && child.exitCode === null) child.kill('SIGINT');
  await new Promise<void>((r) => {
    if (!child || child.exitCode !== null) r();
    else child.once('exit', () => r());
  });
  if (process.env.KEEP) console.log(dataDir);
  else rmSync(dataDir, { recursive: true, force: true });
}

/** Runs `eventbus <argv> --data-dir <dataDir> [extra]` in process; its output, or a failed assertion. */
export function eventbusIn(dataDir: string, extra: readonly string[] = []) {
  return async (...argv: string[]): Promise<string> => {
    const { run } = await import('../../cli/main.ts');
    let out = '';
    let err = '';
    const code = await run([...argv, ...extra, '--data-dir', dataDir], {
      out: (t) => (out += t),
      err: (t) => (err += t),
    });
    if (code !== 0) throw new Error(`eventbus ${argv.join(' ')} exited ${code}: ${err}`);
    return out;
  };
}

/** Google's BigQuery client on a started environment's emulator. */
export async function localBigQuery(ports: Readonly<Record<string, number>>) {
  const { BigQuery } = await import('@google-cloud/bigquery');
  return new BigQuery({ projectId: 'local-project', apiEndpoint: `http://127.0.0.1:${ports['bigquery']}` });
}

/**
 * A secret's value in a started environment's Secret Manager emulator (where local secrets live),
 * read as the project's owner; throws when it has none.
 */
export async function localSecret(
  ports: Readonly<Record<string, number>>,
  name: string,
  project = 'local-project',
): Promise<string> {
  const value = await readSecret(`http://127.0.0.1:${ports['secret-manager']}`, project, name);
  if (value === undefined) throw new Error(`the local environment has no value for secret ${name}`);
  return value.trim();
}

/** Stops a started environment as a user would (Ctrl-C) and removes its data dir. */
export async function stopLocalCli(local: Pick<StartedLocal, 'child' | 'dataDir'>): Promise<void> {
  if (local.child.exitCode === null) {
    const gone = new Promise((r) => local.child.once('exit', r));
    local.child.kill('SIGINT');
    await gone;
  }
  rmSync(local.dataDir, { recursive: true, force: true });
}

/**
 * A `settings` option for startLocalCli: environments/local.yaml with `extra` appended (more
 * connections, destinations), written as `file` in the data dir.
 */
export function localSettingsWith(file: string, extra: string): (dataDir: string) => string {
  return (dataDir) => {
    const path = join(dataDir, file);
    writeFileSync(path, `${readFileSync(join(REPO, 'environments', 'local.yaml'), 'utf8')}${extra}`);
    return path;
  };
}

/** Posts one event to a started environment's gateway with its development token; asserts it is taken. */
export async function publishEvent(
  local: Pick<StartedLocal, 'dataDir' | 'ports'>,
  topic: string,
  body: Readonly<Record<string, unknown>>,
): Promise<void> {
  const token = readFileSync(join(local.dataDir, 'dev-token'), 'utf8').trim();
  const res = await fetch(`http://127.0.0.1:${local.ports['gateway']}/v1/topics/${topic}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200)
    throw new Error(`POST /v1/topics/${topic} answered ${res.status}: ${await res.text()}`);
}

/**
 * The producers most end-to-end tests send as: Segment's and RudderStack's SDK endpoints (the
 * example translators, `/v1/t` and the rest) and Stripe's webhooks signed with `stripeSecret`.
 */
export async function addSdkAndStripeSources(dataDir: string, stripeSecret: string): Promise<void> {
  const eventbus = eventbusIn(dataDir);
  await eventbus('apply', '-f', join(REPO, 'examples', 'translators', 'segment-rudderstack.yaml'));
  await eventbus(
    'source',
    'add',
    'stripe',
    '--secret',
    stripeSecret,
    '--consent',
    'ads,ad_user_data,analytics',
  );
}

/**
 * POSTs one consented `view_content` event (a product view with an e-mail) to a started
 * environment's gateway with its development token: what the delivery tests send.
 */
export async function postViewContent(
  gatewayUrl: string,
  dataDir: string,
  eventId: string,
): Promise<Response> {
  const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
  return fetch(`${gatewayUrl}/v1/topics/view_content`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      event_id: eventId,
      content_name: 'Red Shoe',
      content_type: 'product',
      user: { email: 'ann@example.com' },
      consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
    }),
  });
}

/**
 * `eventbus start` whose settings (environments/local.yaml) let a page on `origin` send, and a
 * write key for it (`keyArgs` added to `eventbus key create`), once the gateway takes the key.
 */
export async function startLocalForOrigin(
  prefix: string,
  origin: string,
  keyArgs: readonly string[] = [],
): Promise<StartedLocal & { readonly key: string }> {
  const local = await startLocalCli({
    prefix,
    settings: (dir) => {
      const path = join(dir, `${prefix}settings.yaml`);
      const yaml = readFileSync(join(REPO, 'environments', 'local.yaml'), 'utf8');
      if (!/origins: \[/.test(yaml)) throw new Error('environments/local.yaml lists no origins');
      writeFileSync(path, yaml.replace('origins: [', `origins: ["${origin}", `));
      return path;
    },
  });
  const created = await eventbusIn(local.dataDir)('key', 'create', '--origin', origin, ...keyArgs);
  const key = /ebk_[A-Za-z0-9_-]+/.exec(created)?.[0];
  if (!key) throw new Error(`no key in: ${created}`);
  const gateway = `http://127.0.0.1:${local.ports['gateway']}`;
  await until('the gateway to take the new key', async () => {
    const res = await fetch(`${gateway}/v1/topics/events?key=${key}`, {
      method: 'POST',
      headers: { origin, 'content-type': 'text/plain' },
      body: JSON.stringify({ event_name: 'consent_probe', anonymous_id: `probe-${Date.now()}` }),
    });
    return res.ok ? true : undefined;
  });
  return { ...local, key };
}
