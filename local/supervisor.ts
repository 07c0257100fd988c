/**
 * The local supervisor: starts the services of local/services.ts as children, waits for each
 * to be ready, provisions the emulators from plan(settings), and stops everything cleanly.
 * Nothing restarts silently. A serverless child (a function, the gateway: `replaceable`) that dies
 * once it was ready is reported and replaced by a new one, as Cloud Functions and Cloud Run replace
 * a crashed instance, at most REPLACEMENTS.max times in REPLACEMENTS.windowMs (a crash loop stops
 * the environment); any other child that dies is reported and stops the whole environment.
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WORKLOADS, type Workload } from '../core/access/needs.ts';
import { plan as planOf, TICKS_TOPIC } from '../core/plan.ts';
import { acquireOwnerLock, LockHeldError, selfRecord } from '../emulators/common/owner-lock.ts';
import type { Settings } from '../schemas/settings.ts';
import { accessFilePath, plannedAccess, writeAccessFile, writeDeclaredSettings } from './access-file.ts';
import { BIGTABLE_SERVICE, bigtableEmulator, localBigtable } from './bigtable.ts';
import { localBundles } from './bundles.ts';
import { Child } from './child.ts';
import {
  readEnvironmentRecord,
  removeEnvironmentRecord,
  writeEnvironmentRecord,
} from './environment-record.ts';
import { seedSecrets } from './local-secrets.ts';
import { standInCredentials } from './platforms/google-ads.ts';
import { canListen, freePort } from './ports.ts';
import { type ProvisionReport, provision } from './provision.ts';
import {
  DEFAULT_PORTS,
  functionUrl,
  type IamService,
  LOCAL_HOST,
  type LocalContext,
  type LocalIam,
  localSettings,
  type Ports,
  type ServiceFactory,
  type ServiceSpec,
  servicesFor,
  writeSettingsFile,
} from './services.ts';
import { environmentFile, REPO_ROOT, readSettingsFile } from './settings-file.ts';

/** How often one serverless child may be replaced before a crash loop stops the environment. */
export const REPLACEMENTS = { max: 5, windowMs: 60_000 } as const;

export interface StartOptions {
  /** Environment name (`local` → environments/local.yaml) or settings file path. */
  readonly env?: string;
  /** Settings given directly (tests); wins over `env`. */
  readonly settings?: Readonly<Settings>;
  /** State directory; default <repo>/.data. */
  readonly dataDir?: string;
  /** Added to every default port, so a second environment can run beside `npm start`. */
  readonly portOffset?: number;
  /** Per-service port overrides (after the offset). */
  readonly ports?: Partial<Ports>;
  /** Pick free ports for every service not overridden (tests running in parallel). */
  readonly freePorts?: boolean;
  /** The services to run; default servicesFor(settings): SERVICES, with forward-catalog when needed. */
  readonly services?: readonly ServiceFactory[];
  /** Provision the emulators after the emulator stage (default true; only those that run). */
  readonly provision?: boolean;
  readonly readyTimeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when stopping. */
  readonly graceMs?: number;
  /** The environment children inherit before their own variables; default process.env. */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Supervisor messages (what started, what died); default stderr. */
  readonly log?: (line: string) => void;
  /** Aborting during startup stops what was started and rejects (Ctrl-C while starting). */
  readonly signal?: AbortSignal;
  /**
   * Seconds between the scheduler's ticks, which the supervisor publishes on the `ticks` topic as
   * Cloud Scheduler does in the cloud (default EVENTBUS_TICK_SECONDS, else 60; 0: no ticks).
   */
  readonly tickSeconds?: number;
  /**
   * Origins the functions' egress gate may send to besides the receiver (a bench's or a test's
   * own stand-in): default EVENTBUS_EGRESS_ALLOW of the supervisor's environment, comma-separated.
   * The studio, the gateway and the emulators are never added.
   */
  readonly egressAllow?: readonly string[];
  /**
   * The emulators enforce the IAM grants `pulumi up` gives (default true): each workload calls
   * them on its own endpoints, as its service account (local/access-file.ts). False: every caller
   * is the project's owner, as on Google's own emulators.
   */
  readonly iam?: boolean;
  /**
   * Run the functions, the gateway and the studio from their TypeScript sources, not from their
   * bundles (default: EVENTBUS_FROM_SOURCES=1 in the supervisor's environment; else bundles,
   * built first when a source changed: local/bundles.ts).
   */
  readonly fromSources?: boolean;
}

export interface ServiceInfo {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  readonly port: number;
  readonly logFile: string;
}

export type ExitReport =
  | { readonly reason: 'stopped' }
  | {
      readonly reason: 'died';
      readonly service: string;
      readonly code: number | null;
      readonly signal: string | null;
      readonly lastLines: readonly string[];
    };

export interface LocalEnvironment {
  /** Service name → URL. */
  readonly urls: Readonly<Record<string, string>>;
  readonly ports: Ports;
  readonly services: readonly ServiceInfo[];
  readonly dataDir: string;
  readonly logDir: string;
  readonly settingsFile?: string;
  readonly provisioning?: ProvisionReport;
  /** Secrets given a local value in the Secret Manager emulator by this start, by name. */
  readonly createdSecrets: readonly string[];
  /** With IAM on: the access file and each workload's own emulator ports. */
  readonly iam?: LocalIam;
  /** Settles once the environment is down: stopped on request, or a child died (all stopped). */
  readonly done: Promise<ExitReport>;
  /** Stops every child (SIGTERM, then SIGKILL after the grace period). */
  stop(): Promise<void>;
}

/** Whether the deployables run from their sources instead of their bundles (`fromSources`, EVENTBUS_FROM_SOURCES=1). */
function fromSources(options: StartOptions): boolean {
  return options.fromSources ?? (options.baseEnv ?? process.env)['EVENTBUS_FROM_SOURCES'] === '1';
}

/** A service that could not start: not ready in time, or exited while starting. */
export class StartError extends Error {
  readonly service: string;
  readonly lastLines: readonly string[];
  constructor(service: string, message: string, lastLines: readonly string[]) {
    super(
      `${service}: ${message}${lastLines.length ? `\n--- last lines of its log ---\n${lastLines.join('\n')}` : ''}`,
    );
    this.name = 'StartError';
    this.service = service;
    this.lastLines = lastLines;
  }
}

/**
 * Starts local/guardian.ts, which stops every child's process group if this process dies
 * without stopping them (crash, SIGKILL): children run in their own groups, so nothing else
 * would. It stops them as `stopAll` does (apps, then emulators; SIGTERM, and SIGKILL after
 * `graceMs`). `release()` tells it the children were stopped cleanly.
 */
function startGuardian(graceMs: number): {
  watch(pgid: number, stage: ServiceSpec['stage']): void;
  release(): void;
} {
  const guardian = spawn(process.execPath, [join(REPO_ROOT, 'local', 'guardian.ts'), String(graceMs)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  // Neither the guardian nor its pipe keeps this process alive.
  guardian.unref();
  (guardian.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null)?.unref?.();
  guardian.stdin?.on('error', () => {}); // the guardian is gone: nothing left to tell it
  return {
    watch: (pgid, stage) => guardian.stdin?.write(`${pgid} ${stage}\n`),
    release: () => guardian.stdin?.end('done\n'),
  };
}

/** The ports an environment uses: defaults + offset, free ports if asked, then overrides. */
export async function resolvePorts(options: Pick<StartOptions, 'portOffset' | 'ports' | 'freePorts'>) {
  const out: Record<string, number> = {};
  for (const [name, port] of Object.entries(DEFAULT_PORTS)) {
    const override = options.ports?.[name as keyof Ports];
    if (override !== undefined) out[name] = override;
    else if (options.freePorts) out[name] = await freePort();
    else out[name] = port + (options.portOffset ?? 0);
  }
  return out as unknown as Ports;
}

/**
 * A start on the data dir of one that was killed (its record stale: kill -9, a crash) waits for
 * what that one's guardian is still stopping to let go of its ports: its functions drain for up
 * to that start's grace, then its emulators stop. At most two graces and two seconds; then the
 * ports are checked as for any start.
 */
async function waitForPreviousStart(
  dataDir: string,
  specs: readonly ServiceSpec[],
  graceMs: number,
  log: (line: string) => void,
): Promise<void> {
  const previous = readEnvironmentRecord(dataDir);
  if (previous.state !== 'stale') return;
  const deadline = Date.now() + 2 * (previous.record.graceMs ?? graceMs) + 2000;
  let said = false;
  for (const spec of specs)
    while (Date.now() < deadline && !(await canListen(spec.port))) {
      if (!said)
        log(`waiting for the services of the start that was killed (pid ${previous.record.pid}) to stop`);
      said = true;
      await sleep(100);
    }
}

/** Refuses to start when a service's port is taken, naming the port and the service. */
async function assertPortsFree(specs: readonly ServiceSpec[]): Promise<void> {
  for (const spec of specs) {
    if (!(await canListen(spec.port)))
      throw new StartError(
        spec.name,
        `port ${spec.port} on ${LOCAL_HOST} is already in use (another environment? try --port-offset or --port ${spec.name}=<port>)`,
        [],
      );
  }
}

async function waitReady(child: Child, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const { readiness, name } = child.spec;
  const aborted = new Promise<'aborted'>((done) => {
    if (signal?.aborted) done('aborted');
    signal?.addEventListener('abort', () => done('aborted'), { once: true });
  });
  const deadline = Date.now() + timeoutMs;
  const died = () =>
    new StartError(
      name,
      `exited while starting (code ${child.exit?.code ?? 'none'}${child.exit?.signal ? `, signal ${child.exit.signal}` : ''})`,
      child.tail,
    );
  if (readiness.kind === 'line') {
    let stopListening = () => {};
    const ready = new Promise<'ready'>((done) => {
      stopListening = child.onLine((line) => {
        if (readiness.pattern.test(line)) done('ready');
      });
      if (child.tail.some((l) => readiness.pattern.test(l))) done('ready');
    });
    const cancel = new AbortController();
    const timer = sleep(timeoutMs, 'timeout' as const, { signal: cancel.signal }).catch(
      () => 'ready' as const,
    );
    const result = await Promise.race([ready, child.exited.then(() => 'exited' as const), timer, aborted]);
    cancel.abort();
    stopListening();
    signal?.throwIfAborted();
    if (result === 'exited') throw died();
    if (result === 'timeout') throw new StartError(name, `not ready after ${timeoutMs} ms`, child.tail);
    return;
  }
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (child.exit) throw died();
    if (readiness.kind === 'http' ? await httpOk(readiness.url) : await tcpOpen(readiness.port)) return;
    await sleep(100);
  }
  if (child.exit) throw died();
  throw new StartError(name, `not ready after ${timeoutMs} ms`, child.tail);
}

/** A 200 on a URL. node:http, not fetch: fetch refuses the Fetch standard's "bad ports" (10080, 6000…). */
function httpOk(url: string): Promise<boolean> {
  return new Promise((resolveOk) => {
    const req = httpGet(url, { timeout: 1000 }, (res) => {
      res.resume();
      resolveOk(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolveOk(false));
  });
}

function tcpOpen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: LOCAL_HOST, port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
    socket.once('timeout', () => {
      socket.destroy();
      done(false);
    });
  });
}

/**
 * Secrets whose local value cannot be random: the OAuth credentials of a Google Ads destination
 * or Customer Match connection pointed at the local receiver are an authorized user file whose
 * tokens the receiver's stand-in issues (docs/platforms.md §6).
 */
export function standInSecrets(settings: Readonly<Settings>, receiver: string): Map<string, string> {
  const out = new Map<string, string>();
  const targets = [
    ...(settings.destinations ?? []).map((d) => ({ type: d.type, url: d.base_url, secrets: d.secrets })),
    ...(settings.connections ?? []).map((c) => ({ type: c.type, url: c.url, secrets: c.secrets })),
  ];
  for (const t of targets) {
    const name = t.secrets?.['credentials'];
    if (
      (t.type === 'google_ads' || t.type === 'google_ads_audience') &&
      name &&
      t.url?.startsWith(`${receiver}/`)
    )
      out.set(name, standInCredentials(t.url));
  }
  return out;
}

/**
 * Starts the local environment and resolves once every service is ready and the emulators
 * are provisioned. Rejects (after stopping what it started) if a service fails to start or
 * provisioning finds a conflict.
 */
/**
 * One `eventbus start` per data directory, refused before anything starts (and so before any
 * "ready" line) while a live one holds it; a holder that died (kill -9, a crash) never does.
 */
function lockDataDirForStart(dataDir: string): () => void {
  try {
    return acquireOwnerLock(join(dataDir, 'start.lock'), `data directory ${dataDir}`, '`eventbus start`');
  } catch (err) {
    if (err instanceof LockHeldError) throw new StartError('(environment)', err.message, []);
    throw err;
  }
}

export async function startEnvironment(options: StartOptions = {}): Promise<LocalEnvironment> {
  // The provisioning clients in this process talk to the emulators only: none may look for a GCE
  // metadata server (Google's gRPC clients do, for their universe domain, unless told not to),
  // whichever command or script started the environment.
  process.env['METADATA_SERVER_DETECTION'] ??= 'none';
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const graceMs = options.graceMs ?? 5000;
  const readyTimeoutMs = options.readyTimeoutMs ?? 30000;
  const settingsFile = options.settings ? undefined : environmentFile(options.env ?? 'local');
  const ports = await resolvePorts(options);
  const given = options.settings ?? readSettingsFile(settingsFile as string);
  const settings = localSettings(given, ports);
  const environmentPlan = planOf(settings);
  const dataDir = resolve(options.dataDir ?? join(REPO_ROOT, '.data'));
  const logDir = join(dataDir, 'logs');
  for (const dir of [dataDir, logDir]) mkdirSync(dir, { recursive: true });
  const releaseDataDir = lockDataDirForStart(dataDir);
  let createdSecrets: string[] = [];
  try {
    // After the lock: a second start on the same folder must not change the running one's file.
    writeSettingsFile({ dataDir, settings });
  } catch (err) {
    releaseDataDir();
    throw err;
  }
  const extraEgress =
    options.egressAllow ??
    (options.baseEnv ?? process.env)['EVENTBUS_EGRESS_ALLOW']?.split(',').filter((o) => o !== '') ??
    [];
  const base: LocalContext = {
    root: REPO_ROOT,
    dataDir,
    logDir,
    ports,
    settings,
    project: settings.project,
    node: process.execPath,
    ...(extraEgress.length > 0 ? { egressAllow: extraEgress } : {}),
  };
  const factories = options.services ?? servicesFor(settings);
  const withEmulators = factories.some((f) => f(base).stage === 'emulator');
  // IAM is the emulators' to enforce: an environment without them has none.
  const iam = options.iam !== false && withEmulators ? await localIam(dataDir) : undefined;
  // The claims' Bigtable twin, only when the settings choose it (local/bigtable.ts).
  const bigtable = withEmulators ? await localBigtable(environmentPlan, iam !== undefined) : undefined;
  // Declared offline in its own process while the emulators start; awaited before any workload runs.
  // From the settings as given, not as moved to this start's ports: one kept plan for them all.
  const planned = iam
    ? Promise.resolve().then(() =>
        plannedAccess(process.execPath, REPO_ROOT, writeDeclaredSettings(dataDir, given)),
      )
    : undefined;
  planned?.catch(() => {});
  // The deployables run from their bundles (local/bundles.ts), built first if the sources changed.
  const wanted = fromSources(options)
    ? []
    : [...new Set(factories.flatMap((factory) => factory(base).bundle ?? []))];
  let bundles: Awaited<ReturnType<typeof localBundles>> | undefined;
  try {
    bundles = wanted.length > 0 ? await localBundles(REPO_ROOT, wanted, log) : undefined;
  } catch (err) {
    releaseDataDir();
    throw new StartError('(bundles)', (err as Error).message, []);
  }
  const ctx: LocalContext = {
    ...base,
    ...(iam ? { iam } : {}),
    ...(bundles ? { bundles } : {}),
    ...(bigtable ? { bigtable } : {}),
  };
  const specs = [
    ...(bigtable ? [bigtableEmulator(ctx, bigtable)] : []),
    ...factories.map((factory) => factory(ctx)),
  ];
  // Before anything starts or is provisioned: a taken port would otherwise mean provisioning
  // into somebody else's emulator and a start that dies a moment after saying "ready".
  await waitForPreviousStart(dataDir, specs, graceMs, log);
  await assertPortsFree(specs);
  const baseEnv = options.baseEnv ?? process.env;
  const children: Child[] = [];
  const guardian = startGuardian(graceMs);
  let stopping: Promise<void> | undefined;
  let resolveDone: (report: ExitReport) => void = () => {};
  const done = new Promise<ExitReport>((r) => {
    resolveDone = r;
  });

  let ticker: NodeJS.Timeout | undefined;
  const stopAll = (report: ExitReport): Promise<void> => {
    stopping ??= (async () => {
      if (ticker) clearInterval(ticker);
      // Apps first (together), emulators last (together), so nothing loses its backend while it drains.
      const byStage = (stage: ServiceSpec['stage']) => children.filter((c) => c.spec.stage === stage);
      await Promise.all(byStage('app').map((c) => c.stop(graceMs)));
      await Promise.all(byStage('emulator').map((c) => c.stop(graceMs)));
      removeEnvironmentRecord(dataDir);
      guardian.release();
      releaseDataDir();
      resolveDone(report);
    })();
    return stopping;
  };

  /** When each serverless child died, for the crash-loop limit. */
  const deaths = new Map<string, number[]>();
  const launch = async (spec: ServiceSpec, replacing = false): Promise<void> => {
    options.signal?.throwIfAborted();
    const child = new Child(spec, baseEnv);
    children.push(child);
    if (child.process.pid !== undefined) guardian.watch(child.process.pid, spec.stage);
    let ready = false;
    void child.exited.then((exit) => {
      if (stopping) return;
      const report: ExitReport = {
        reason: 'died',
        service: spec.name,
        code: exit.code,
        signal: exit.signal,
        lastLines: [...child.tail],
      };
      const what = `${spec.name} exited (code ${exit.code ?? 'none'}${exit.signal ? `, signal ${exit.signal}` : ''})`;
      const lastLines = `Last lines of ${spec.logFile}:\n${child.tail.map((l) => `  ${l}`).join('\n')}`;
      // Replaced once it was ready (a first start that fails is the start's error), or when it is
      // itself a replacement, and not in a loop.
      const now = Date.now();
      const recent = (deaths.get(spec.name) ?? []).filter((t) => now - t < REPLACEMENTS.windowMs);
      deaths.set(spec.name, [...recent, now]);
      const serving = ready || replacing;
      if (spec.replaceable && serving && recent.length < REPLACEMENTS.max) {
        log(
          `${what}; starting a new instance in its place (${recent.length + 1} of ${REPLACEMENTS.max} in ${REPLACEMENTS.windowMs / 1000} s). ${lastLines}`,
        );
        launch(spec, true).catch((err: unknown) => {
          if (stopping) return;
          log(`${spec.name} could not be replaced (${(err as Error).message}); stopping the environment`);
          void stopAll(report);
        });
        return;
      }
      const loop =
        spec.replaceable && serving
          ? `; it died ${recent.length + 1} times in ${REPLACEMENTS.windowMs / 1000} s`
          : '';
      log(`${what}${loop}; stopping the environment. ${lastLines}`);
      void stopAll(report);
    });
    try {
      await waitReady(child, readyTimeoutMs, options.signal);
    } catch (err) {
      // A replacement that died while starting is its exit handler's to decide (above).
      if (replacing && child.exit) return;
      throw err;
    }
    ready = true;
    log(`${spec.name} ready on ${spec.url} (pid ${child.process.pid})`);
  };

  let provisioning: ProvisionReport | undefined;
  try {
    // The emulators start together (none needs another; provisioning waits for all of them).
    const emulators = await Promise.allSettled(
      specs.filter((s) => s.stage === 'emulator').map((s) => launch(s)),
    );
    const failed = emulators.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const access = planned ? await planned : undefined;
    if (access) writeAccessFile(dataDir, access.policies, access.policyTags);
    if (specs.some((s) => s.name === 'secret-manager')) {
      // Every destination secret gets a local value (random, or a stand-in's credentials), and
      // secrets an earlier version kept as files in <data>/secrets move into the emulator, and
      // their files are removed (secret values live in one place).
      const standIns = standInSecrets(settings, `http://${LOCAL_HOST}:${ports.receiver}`);
      createdSecrets = await seedSecrets(
        `http://${LOCAL_HOST}:${ports['secret-manager']}`,
        settings.project,
        [...new Set([...environmentPlan.destinations.flatMap((d) => d.secrets), ...standIns.keys()])],
        standIns,
        () => randomBytes(32).toString('hex'),
        join(dataDir, 'secrets'),
        log,
      );
    }
    if (options.provision !== false) {
      const names = new Set(specs.map((s) => s.name));
      if (['pubsub', 'bigquery', 'storage', 'firestore', BIGTABLE_SERVICE].some((n) => names.has(n))) {
        provisioning = await provision(environmentPlan, {
          project: settings.project,
          ...(names.has('pubsub') ? { pubsub: `${LOCAL_HOST}:${ports.pubsub}` } : {}),
          ...(names.has('bigquery') ? { bigquery: `http://${LOCAL_HOST}:${ports.bigquery}` } : {}),
          ...(names.has('storage') ? { storage: `http://${LOCAL_HOST}:${ports.storage}` } : {}),
          ...(names.has('firestore') ? { firestore: `${LOCAL_HOST}:${ports.firestore}` } : {}),
          ...(bigtable ? { bigtable: `${LOCAL_HOST}:${bigtable.port}` } : {}),
          functionUrl: (fn) => functionUrl(ports, fn),
          // With IAM on, the PII columns carry the tag the emulator enforces (the program's).
          ...(access?.policyTags[0] ? { piiTag: access.policyTags[0].name } : {}),
        });
        if (provisioning.conflicts.length > 0) {
          // A StartError: `eventbus start` prints it as one error, without a stack trace.
          throw new StartError(
            'provisioning',
            `the emulators' state does not match the plan:\n${provisioning.conflicts.map((c) => `  ${c}`).join('\n')}`,
            [],
          );
        }
      }
    }
    for (const spec of specs.filter((s) => s.stage === 'app')) await launch(spec);
    options.signal?.throwIfAborted();
  } catch (err) {
    await stopAll({ reason: 'stopped' });
    throw err;
  }
  if (stopping) {
    // A child died between its readiness and the end of startup.
    const report = await done;
    throw new StartError(
      report.reason === 'died' ? report.service : '(environment)',
      'exited during startup',
      report.reason === 'died' ? report.lastLines : [],
    );
  }

  const tickSeconds = options.tickSeconds ?? Number(baseEnv['EVENTBUS_TICK_SECONDS'] ?? 60);
  if (tickSeconds > 0 && specs.some((s) => s.name === 'schedule') && specs.some((s) => s.name === 'pubsub')) {
    const publishTick = localTicker(settings.project, ports.pubsub, log);
    ticker = setInterval(publishTick, tickSeconds * 1000);
    ticker.unref();
    void publishTick();
  }

  const urls = Object.fromEntries(specs.map((s) => [s.name, s.url]));
  writeEnvironmentRecord(dataDir, {
    pid: process.pid,
    pidStart: selfRecord().start,
    graceMs,
    startedAt: new Date().toISOString(),
    project: settings.project,
    dataset: environmentPlan.dataset,
    ports,
    urls,
    pubsubHost: `${LOCAL_HOST}:${ports.pubsub}`,
    bigqueryUrl: `http://${LOCAL_HOST}:${ports.bigquery}`,
    storageUrl: `http://${LOCAL_HOST}:${ports.storage}`,
    firestoreHost: `${LOCAL_HOST}:${ports.firestore}`,
    ...(bigtable ? { bigtableHost: `${LOCAL_HOST}:${bigtable.port}` } : {}),
    secretManagerUrl: `http://${LOCAL_HOST}:${ports['secret-manager']}`,
  });
  return {
    urls,
    ports,
    // The instance now serving each service: a replaced one's successor (launched after it).
    get services() {
      const current = new Map(children.map((c) => [c.spec.name, c]));
      return [...current.values()].map((c) => ({
        name: c.spec.name,
        pid: c.process.pid ?? 0,
        url: c.spec.url,
        port: c.spec.port,
        logFile: c.spec.logFile,
      }));
    },
    dataDir,
    logDir,
    ...(settingsFile ? { settingsFile } : {}),
    ...(provisioning ? { provisioning } : {}),
    createdSecrets,
    ...(iam ? { iam } : {}),
    done,
    stop: () => stopAll({ reason: 'stopped' }),
  };
}

/**
 * IAM on: the access file (its secret kept, no grant yet: the plan's are written once declared)
 * and a port per workload on each emulator and on the receiver (its traces).
 */
async function localIam(dataDir: string): Promise<LocalIam> {
  writeAccessFile(dataDir, []);
  const ports = {} as Record<Workload, Record<IamService, number>>;
  for (const w of WORKLOADS)
    ports[w] = {
      pubsub: await freePort(),
      bigquery: await freePort(),
      storage: await freePort(),
      firestore: await freePort(),
      'secret-manager': await freePort(),
      receiver: await freePort(),
    };
  return { file: accessFilePath(dataDir), ports };
}

/**
 * What Cloud Scheduler does in the cloud: publish a tick on the `ticks` topic (through the Pub/Sub
 * emulator's REST API). A failed publish is only logged: the next tick comes anyway.
 */
function localTicker(project: string, pubsubPort: number, log: (line: string) => void): () => Promise<void> {
  const url = `http://${LOCAL_HOST}:${pubsubPort}/v1/projects/${project}/topics/${TICKS_TOPIC}:publish`;
  let failing = false;
  return async () => {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [
            {
              data: Buffer.from(JSON.stringify({ at: new Date().toISOString() })).toString('base64'),
              attributes: { type: 'tick' },
            },
          ],
        }),
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      failing = false;
    } catch (err) {
      if (!failing) log(`scheduler tick not published: ${(err as Error).message}`);
      failing = true;
    }
  };
}
