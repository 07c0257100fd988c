/** The supervisor with stand-in children: readiness, death reports, clean stops, no leftovers. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readEnvironmentRecord } from '../../local/environment-record.ts';
import { canListen, freePort, PORT_SLICES } from '../../local/ports.ts';
import {
  bigqueryEmulator,
  DEFAULT_PORTS,
  type LocalContext,
  type Ports,
  pubsubEmulator,
  type ServiceSpec,
  secretManagerEmulator,
  storageEmulator,
} from '../../local/services.ts';
import { readSettingsFile } from '../../local/settings-file.ts';
import {
  type LocalEnvironment,
  REPLACEMENTS,
  resolvePorts,
  StartError,
  startEnvironment,
} from '../../local/supervisor.ts';

const root = resolve(import.meta.dirname, '../..');
const dummy = join(root, 'test/local/support/dummy-service.ts');
const settings = readSettingsFile(join(root, 'environments/local.yaml'));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts test/local/support/crashing-supervisor.ts and waits for the pids of its `count` services. */
async function crashingSupervisor(dataDir: string, count: number, ...args: string[]) {
  const supervisor = spawn(
    process.execPath,
    [join(root, 'test/local/support/crashing-supervisor.ts'), dataDir, ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  supervisor.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  const pidsOf = () => [...out.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));
  // Three emulators on a loaded 2-core machine (the whole suite beside) can take over 20 s.
  const deadline = Date.now() + 60_000;
  while (pidsOf().length < count && Date.now() < deadline) await sleep(50);
  return { supervisor, pids: pidsOf(), out };
}

/** A dummy service on a port of the context (the `gateway` or `receiver` slot's port). */
function dummyService(
  name: string,
  portName: 'gateway' | 'receiver',
  mode: string,
  readiness: 'http' | 'line' = 'http',
  replaceable = false,
) {
  return (ctx: LocalContext): ServiceSpec => {
    const port = ctx.ports[portName];
    return {
      name,
      stage: 'app',
      command: ctx.node,
      args: [dummy, '--port', String(port), '--mode', mode],
      env: {},
      port,
      url: `http://127.0.0.1:${port}`,
      readiness:
        readiness === 'http'
          ? { kind: 'http', url: `http://127.0.0.1:${port}/health` }
          : { kind: 'line', pattern: /listening on/ },
      logFile: join(ctx.logDir, `${name}.log`),
      cwd: ctx.root,
      ...(replaceable ? { replaceable } : {}),
    };
  };
}

describe('local supervisor', () => {
  let dataDir: string;
  let env: LocalEnvironment | undefined;
  const messages: string[] = [];
  const common = () => ({
    settings,
    dataDir,
    freePorts: true,
    provision: false,
    graceMs: 500,
    readyTimeoutMs: 10000,
    log: (line: string) => messages.push(line),
  });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'eventbus-supervisor-'));
    messages.length = 0;
  });
  afterEach(async () => {
    await env?.stop();
    env = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts children, waits for readiness, writes logs and stops them all', async () => {
    env = await startEnvironment({
      ...common(),
      services: [dummyService('one', 'gateway', 'ready'), dummyService('two', 'receiver', 'ready', 'line')],
    });
    assert.deepEqual(
      env.services.map((s) => s.name),
      ['one', 'two'],
    );
    const res = await fetch(`${env.urls['one']}/health`);
    assert.equal(res.status, 200);
    const pids = env.services.map((s) => s.pid);
    assert.ok(pids.every(alive));
    await env.stop();
    assert.deepEqual(await env.done, { reason: 'stopped' });
    assert.deepEqual(pids.map(alive), [false, false]);
    assert.match(readFileSync(join(dataDir, 'logs', 'one.log'), 'utf8'), /dummy listening on/);
  });

  it('leaves no grace timer behind once the children have stopped (the command exits at once)', async () => {
    // A pending grace timer held `eventbus start`'s event loop open for the whole grace period
    // after "stopped": five seconds per stop, on every test that starts an environment.
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await sleep(1); // mocha arms the test's own timeout once the test function has returned
    const before = timers();
    env = await startEnvironment({
      ...common(),
      graceMs: 60_000,
      services: [dummyService('one', 'gateway', 'ready')],
    });
    await env.stop();
    assert.equal(timers(), before);
  });

  it('reports a child that dies (name, exit code, last lines) and stops the rest', async () => {
    env = await startEnvironment({
      ...common(),
      services: [dummyService('steady', 'gateway', 'ready'), dummyService('fragile', 'receiver', 'die')],
    });
    const steady = env.services[0]?.pid ?? 0;
    // Started, then it dies: asked to, so the start cannot lose a race with it under load.
    await fetch(`${env.services[1]?.url}/die`, { method: 'POST' }).catch(() => {});
    const report = await env.done;
    assert.equal(report.reason, 'died');
    assert.ok(report.reason === 'died');
    assert.equal(report.service, 'fragile');
    assert.equal(report.code, 3);
    assert.ok(report.lastLines.some((l) => l.includes('out of memory')));
    assert.equal(alive(steady), false);
    assert.ok(messages.some((m) => m.includes('fragile exited (code 3)')));
  });

  /** A steady service and `fn`, a serverless one (replaceable) that dies when asked. */
  const startWithFunction = () =>
    startEnvironment({
      ...common(),
      services: [
        dummyService('steady', 'gateway', 'ready'),
        dummyService('fn', 'receiver', 'die', 'http', true),
      ],
    });

  it('replaces a serverless child that dies once ready, as Cloud Functions does, and keeps the rest', async () => {
    env = await startWithFunction();
    const steady = env.services[0]?.pid ?? 0;
    const first = env.services[1]?.pid ?? 0;
    await fetch(`${env.urls['fn']}/die`, { method: 'POST' }).catch(() => {});
    const deadline = Date.now() + 20_000;
    while ((env.services[1]?.pid ?? first) === first && Date.now() < deadline) await sleep(50);
    const second = env.services[1]?.pid ?? 0;
    assert.notEqual(second, first);
    // The new instance is ready: the supervisor said so, and it answers on the same port.
    while (
      !messages.some((m) => m.includes(`fn ready on`) && m.includes(`(pid ${second})`)) &&
      Date.now() < deadline
    )
      await sleep(50);
    assert.equal((await fetch(`${env.urls['fn']}/health`)).status, 200);
    assert.ok(
      messages.some((m) =>
        m.includes(`fn exited (code 3); starting a new instance in its place (1 of ${REPLACEMENTS.max}`),
      ),
    );
    assert.equal(alive(first), false);
    assert.ok(alive(steady) && alive(second));
    assert.deepEqual(
      env.services.map((s) => s.name),
      ['steady', 'fn'],
    );
    const settled = await Promise.race([env.done, sleep(200, 'running')]);
    assert.equal(settled, 'running');
  });

  it('stops the environment when a serverless child dies in a loop', async () => {
    env = await startWithFunction();
    const steady = env.services[0]?.pid ?? 0;
    let down = false;
    void env.done.then(() => {
      down = true;
    });
    const deadline = Date.now() + 60_000;
    for (let deaths = 0; deaths <= REPLACEMENTS.max && !down && Date.now() < deadline; ) {
      const pid = env.services[1]?.pid ?? 0;
      if (!alive(pid) || (await fetch(`${env.urls['fn']}/health`).catch(() => undefined))?.status !== 200) {
        await sleep(50);
        continue;
      }
      await fetch(`${env.urls['fn']}/die`, { method: 'POST' }).catch(() => {});
      while (alive(pid) && Date.now() < deadline) await sleep(20);
      deaths++;
    }
    const done = await env.done;
    assert.equal(done.reason, 'died');
    assert.ok(done.reason === 'died' && done.service === 'fn');
    assert.equal(alive(steady), false);
    assert.ok(
      messages.some((m) =>
        m.includes(
          `fn exited (code 3); it died ${REPLACEMENTS.max + 1} times in 60 s; stopping the environment`,
        ),
      ),
    );
  });

  it('fails the start when a child exits while starting, and stops what was started', async () => {
    let started: number[] = [];
    await assert.rejects(
      startEnvironment({
        ...common(),
        log: (line) => {
          messages.push(line);
          const m = /pid (\d+)/.exec(line);
          if (m) started = [...started, Number(m[1])];
        },
        services: [
          dummyService('first', 'gateway', 'ready'),
          dummyService('broken', 'receiver', 'die-at-start'),
        ],
      }),
      (err: unknown) =>
        err instanceof StartError && err.service === 'broken' && /cannot open its database/.test(err.message),
    );
    assert.equal(started.length, 1);
    assert.equal(alive(started[0] as number), false);
  });

  it('fails the start when a child never becomes ready', async () => {
    await assert.rejects(
      startEnvironment({
        ...common(),
        readyTimeoutMs: 700,
        services: [dummyService('silent', 'gateway', 'quiet', 'line')],
      }),
      /silent: not ready after 700 ms/,
    );
  });

  it('kills a child that ignores SIGTERM after the grace period, and its own children', async () => {
    env = await startEnvironment({
      ...common(),
      services: [
        dummyService('stubborn', 'gateway', 'ignore-term'),
        dummyService('parent', 'receiver', 'grandchild', 'line'),
      ],
    });
    // The parent prints its child's pid just after its ready line: wait for it (a loaded machine
    // may take a moment to write it to the log).
    let grandchild = 0;
    for (let i = 0; i < 100 && !grandchild; i++) {
      await sleep(50);
      grandchild = Number(
        /grandchild (\d+)/.exec(readFileSync(join(dataDir, 'logs', 'parent.log'), 'utf8'))?.[1] ?? 0,
      );
    }
    assert.ok(grandchild > 0 && alive(grandchild));
    const pids = env.services.map((s) => s.pid);
    await env.stop();
    assert.deepEqual([...pids, grandchild].map(alive), [false, false, false]);
    assert.match(readFileSync(join(dataDir, 'logs', 'stubborn.log'), 'utf8'), /ignoring SIGTERM/);
  });

  it('leaves no child behind when the supervisor itself is SIGKILLed (the guardian reaps them)', async () => {
    const { supervisor, pids, out } = await crashingSupervisor(dataDir, 1);
    const pid = pids[0] as number;
    assert.ok(pid > 0 && alive(pid), `the dummy child runs (${out})`);
    supervisor.kill('SIGKILL');
    const gone = Date.now() + 5000;
    while (alive(pid) && Date.now() < gone) await sleep(50);
    assert.equal(alive(pid), false, 'the child died with its supervisor');
  });

  it("the guardian stops a SIGKILLed supervisor's apps with SIGTERM while the emulators still run, then the emulators", async function () {
    this.timeout(60_000);
    const { supervisor, pids, out } = await crashingSupervisor(dataDir, 2, 'staged');
    assert.equal(pids.length, 2, out);
    supervisor.kill('SIGKILL');
    const gone = Date.now() + 15_000;
    while (pids.some(alive) && Date.now() < gone) await sleep(50);
    assert.deepEqual(pids.map(alive), [false, false], 'both stopped');
    // Without the guardian's SIGTERM the app has no last words; with both stages signalled at
    // once (or the emulator first) its peer does not answer.
    assert.match(
      readFileSync(join(dataDir, 'drainer-note.txt'), 'utf8'),
      /dummy: drained on SIGTERM, the peer answered 200/,
    );
  });

  it('a start on the data dir of a start killed with kill -9 waits for what its guardian is still stopping', async function () {
    this.timeout(60_000);
    const { supervisor, pids, out } = await crashingSupervisor(dataDir, 1, 'ignore-term');
    assert.equal(pids.length, 1, out);
    // The killed start's record names its ports; the next start takes the same ones.
    const record = JSON.parse(readFileSync(join(dataDir, 'environment.json'), 'utf8')) as { ports: Ports };
    supervisor.kill('SIGKILL');
    // The child ignores SIGTERM: the guardian kills it after the grace (5 s), holding its port until then.
    env = await startEnvironment({
      ...common(),
      freePorts: false,
      ports: record.ports,
      services: [dummyService('next', 'gateway', 'ready')],
    });
    assert.ok(
      messages.some((m) =>
        /waiting for the services of the start that was killed \(pid \d+\) to stop/.test(m),
      ),
      messages.join('\n'),
    );
    // Gone (its port is free); reaped by init a moment later.
    const reaped = Date.now() + 5000;
    while (alive(pids[0] as number) && Date.now() < reaped) await sleep(50);
    assert.equal(alive(pids[0] as number), false);
  });

  it('refuses a second start on a data dir a live start holds, naming it, before starting anything', async () => {
    env = await startEnvironment({ ...common(), services: [dummyService('one', 'gateway', 'ready')] });
    const before = messages.length;
    await assert.rejects(
      startEnvironment({ ...common(), services: [dummyService('two', 'receiver', 'ready')] }),
      (e: unknown) =>
        e instanceof StartError &&
        e.message.includes(`is in use by another \`eventbus start\` (pid ${process.pid}: `),
    );
    assert.deepEqual(messages.slice(before), [], 'the refused start started nothing and said nothing ready');
  });

  it('starts at once on the data dir of a start killed with kill -9, emulators and all', async function () {
    // Two whole crash-and-start rounds: 17 s on an idle machine, over 30 s under the full suite.
    this.timeout(120_000);
    for (let round = 0; round < 2; round++) {
      // kill -9 of the whole environment: the supervisor and every emulator.
      const { supervisor, pids } = await crashingSupervisor(dataDir, 3, 'emulators');
      assert.equal(pids.length, 3);
      supervisor.kill('SIGKILL');
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      // No wait: nothing killed may be reaped yet; the new start finds its data again.
      env = await startEnvironment({
        ...common(),
        provision: true,
        services: [pubsubEmulator, bigqueryEmulator, storageEmulator],
      });
      assert.ok(env.provisioning, 'provisioned against the data found again');
      // The registry bucket survived the kill -9 and was found, not created again.
      assert.ok(
        round === 0 || env.provisioning.unchanged.some((u) => u.startsWith('bucket ')),
        String(round),
      );
      await env.stop();
      env = undefined;
    }
  });

  it('creates local values for destination secrets once, in the Secret Manager emulator', async () => {
    env = await startEnvironment({ ...common(), services: [secretManagerEmulator] });
    // One per destination secret of environments/local.yaml.
    assert.deepEqual([...env.createdSecrets].sort(), [
      'GA4_API_SECRET',
      'META_ACCESS_TOKEN',
      'TIKTOK_ACCESS_TOKEN',
      'WEBHOOK_SIGNING_KEY',
    ]);
    const read = async () => {
      const at = `${env?.urls['secret-manager']}/v1/projects/${settings.project}/secrets/WEBHOOK_SIGNING_KEY/versions/latest:access`;
      const body = (await (await fetch(at)).json()) as { payload: { data: string } };
      return Buffer.from(body.payload.data, 'base64').toString();
    };
    const value = await read();
    assert.match(value, /^[0-9a-f]{64}$/);
    assert.equal(existsSync(join(dataDir, 'secrets')), false, 'no secret files');
    await env.stop();
    env = await startEnvironment({ ...common(), services: [secretManagerEmulator] });
    assert.deepEqual(env.createdSecrets, []);
    assert.equal(await read(), value);
  });

  it('refuses to start when a port is taken, naming port and service, before any child starts', async () => {
    const taken = createServer();
    const port = await freePort();
    await new Promise<void>((done) => taken.listen(port, '127.0.0.1', done));
    try {
      await assert.rejects(
        startEnvironment({
          ...common(),
          ports: { receiver: port },
          services: [dummyService('first', 'gateway', 'ready'), dummyService('second', 'receiver', 'ready')],
        }),
        (err: Error) =>
          err instanceof StartError && new RegExp(`^second: port ${port} .*already in use`).test(err.message),
      );
      // Nothing was started, so nothing said "ready", and no record points at this data dir.
      assert.deepEqual(messages, []);
      assert.ok(!existsSync(join(dataDir, 'environment.json')));
    } finally {
      await new Promise((done) => taken.close(done));
    }
  });

  it('records where the environment listens once ready, and removes the record on a clean stop', async () => {
    env = await startEnvironment({ ...common(), services: [dummyService('one', 'gateway', 'ready')] });
    const found = readEnvironmentRecord(dataDir);
    assert.equal(found.state, 'running');
    assert.ok(found.state === 'running');
    assert.equal(found.record.pid, process.pid);
    assert.deepEqual(found.record.ports, env.ports);
    assert.equal(found.record.bigqueryUrl, `http://127.0.0.1:${env.ports.bigquery}`);
    await env.stop();
    assert.deepEqual(readEnvironmentRecord(dataDir), { state: 'absent' });
  });

  it('resolves ports: defaults, an offset, overrides and free ports', async () => {
    assert.deepEqual(await resolvePorts({}), DEFAULT_PORTS);
    const shifted = await resolvePorts({ portOffset: 100, ports: { gateway: 9999 } });
    assert.equal(shifted.pubsub, 8185);
    assert.equal(shifted.gateway, 9999);
    const free = await resolvePorts({ freePorts: true });
    assert.ok(Object.values(free).every((p) => p > 0 && p !== 8085));
  });

  it('hands out free ports below the kernel range of outgoing connections, never one twice', async () => {
    const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
    assert.equal(new Set(ports).size, ports.length);
    // Linux gives outgoing connections 32768–60999 by default: a port there could be taken
    // between the probe and the service's own listen.
    assert.ok(
      ports.every((p) => p >= 1024 && p < 32_768),
      String(ports),
    );
    // Free means free: each can be listened on.
    for (const port of ports.slice(0, 5)) {
      const server = createServer();
      await new Promise<void>((done, fail) => {
        server.once('error', fail);
        server.listen(port, '127.0.0.1', done);
      });
      await new Promise((done) => server.close(done));
    }
  });
});

describe('freePort across processes', () => {
  /**
   * Starts `count` processes at once, each asking freePort for five ports; their answers. Each
   * keeps running (holding its slices) until every one has answered: a process that ended before
   * a slow one started would free its slice for it, which is no overlap of processes running at
   * once (on a loaded machine a fixed wait was not enough).
   */
  async function draw(count: number): Promise<number[][]> {
    const script = `import { freePort } from ${JSON.stringify(join(root, 'local/ports.ts'))};
const ports = [];
for (let i = 0; i < 5; i++) ports.push(await freePort());
console.log(JSON.stringify(ports));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));`;
    const children = Array.from({ length: count }, () =>
      spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    try {
      return await Promise.all(
        children.map(
          (child) =>
            new Promise<number[]>((done, fail) => {
              let out = '';
              child.stdout.on('data', (b: Buffer) => {
                out += b.toString();
                if (out.includes('\n')) done(JSON.parse(out) as number[]);
              });
              child.once('close', () => fail(new Error(`a drawing process ended first: ${out}`)));
            }),
        ),
      );
    } finally {
      await Promise.all(
        children.map((child) => {
          const closed = new Promise((done) => child.once('close', done));
          child.stdin.end();
          return child.exitCode === null ? closed : undefined;
        }),
      );
    }
  }

  it('gives processes running at once disjoint port ranges, below the ephemeral range', async function () {
    this.timeout(20_000);
    const drawn = await draw(4);
    const { from, to, size } = PORT_SLICES;
    const sliceOf = (port: number) => Math.floor((port - from) / size);
    // On a failure, how many slices other processes held then (a slice is held by listening on
    // its first port): all of them held is the shared fallback, not a broken claim.
    const held = async () => {
      let n = 0;
      for (let lock = from; lock + size <= to; lock += size) if (!(await canListen(lock))) n++;
      return `${n} of ${Math.floor((to - from) / size)} slices held by running processes`;
    };
    const owners = new Map<number, number>();
    const heldNow = await held();
    drawn.forEach((ports, who) => {
      for (const port of ports) {
        assert.ok(port >= from && port < to, `${port} is in ${from}–${to}`);
        const owner = owners.get(sliceOf(port)) ?? who;
        assert.equal(owner, who, `port ${port}: its slice was drawn by two processes (${heldNow})`);
        owners.set(sliceOf(port), who);
      }
      assert.equal(new Set(ports).size, ports.length, 'one process never draws a port twice');
    });
    assert.equal(new Set(drawn.map((ports) => sliceOf(ports[0] as number))).size, 4);
  });
});
