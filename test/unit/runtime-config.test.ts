/**
 * Settings reach a workload in a file (EVENTBUS_SETTINGS_FILE), read once at cold start, the
 * same way for `npm start` and Google Cloud: Cloud Run caps one environment variable's value at
 * 32 KiB, which settings with many destinations or connections outgrow. A function's whole
 * configuration is one frozen value, and each deployable reads the process environment once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSettingsText } from '../../adapters/settings-file.ts';
import { ENV, listenAddress, readFunctionConfig, readRuntimeConfig } from '../../core/runtime-config.ts';
import { CLOUD_RUN_VALUE_LIMIT, largeSettings } from '../support/large-settings.ts';

describe('runtime config: settings from a file', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-runtime-config-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads when spans leave from EVENTBUS_TRACE_FLUSH: timer only when it says so', () => {
    const file = join(dir, 'flush.json');
    writeFileSync(file, JSON.stringify({ name: 'dev', project: 'acme-dev-project', region: 'europe-west1' }));
    const flushOf = (value?: string) =>
      readRuntimeConfig(
        { [ENV.settingsFile]: file, ...(value === undefined ? {} : { [ENV.traceFlush]: value }) },
        readSettingsText,
      ).traceFlush;
    assert.deepEqual(
      [flushOf(), flushOf('answer'), flushOf('timer'), flushOf('TIMER'), flushOf('')],
      ['answer', 'answer', 'timer', 'answer', 'answer'],
    );
  });

  it('reads settings over 32 KiB from EVENTBUS_SETTINGS_FILE', () => {
    const settings = largeSettings(CLOUD_RUN_VALUE_LIMIT + 8 * 1024);
    const text = JSON.stringify(settings);
    assert.ok(text.length > CLOUD_RUN_VALUE_LIMIT, `${text.length} bytes`);
    const file = join(dir, 'settings.json');
    writeFileSync(file, text);
    const config = readRuntimeConfig({ [ENV.settingsFile]: file }, readSettingsText);
    assert.equal(config.settings.destinations?.length, settings.destinations?.length);
    assert.equal(config.plan.destinations.length, settings.destinations?.length);
  });

  it('prefers the file to EVENTBUS_SETTINGS, and names the file when it is bad', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, '{"name": "x"');
    assert.throws(
      () => readRuntimeConfig({ [ENV.settingsFile]: file, [ENV.settings]: '{}' }, readSettingsText),
      new RegExp(`${ENV.settingsFile} \\(${file.replace(/[.]/g, '\\.')}\\) is not valid JSON`),
    );
  });

  it('refuses a settings file it was given no reader for, and a missing file, naming the variable', () => {
    assert.throws(() => readRuntimeConfig({ [ENV.settingsFile]: '/nowhere.json' }), /reads no files/);
    assert.throws(
      () => readRuntimeConfig({ [ENV.settingsFile]: join(dir, 'missing.json') }, readSettingsText),
      /EVENTBUS_SETTINGS_FILE .* cannot be read/,
    );
    assert.throws(() => readRuntimeConfig({}), /neither EVENTBUS_SETTINGS_FILE nor EVENTBUS_SETTINGS is set/);
  });
});

const SETTINGS = JSON.stringify({ name: 'shop', project: 'shop-project', region: 'europe-west1' });

describe('runtime config: a function’s configuration, read once', () => {
  it("reads the egress gate's allow-list once: empty unless set, origins only", () => {
    assert.equal(readFunctionConfig({ [ENV.settings]: SETTINGS }).egressAllow.size, 0);
    const config = readFunctionConfig({
      [ENV.settings]: SETTINGS,
      [ENV.egressAllow]: 'http://127.0.0.1:8099,http://127.0.0.1:8100',
    });
    assert.deepEqual([...config.egressAllow], ['http://127.0.0.1:8099', 'http://127.0.0.1:8100']);
    assert.throws(
      () => readFunctionConfig({ [ENV.settings]: SETTINGS, [ENV.egressAllow]: 'http://127.0.0.1:8099/x' }),
      /not an origin/,
    );
  });

  it('reads the settings and the function’s own variables into one frozen value', () => {
    const env = {
      [ENV.settings]: SETTINGS,
      [ENV.storeBatchMs]: '2',
      [ENV.firstWindowMs]: '15000',
      [ENV.pubsubEmulatorHost]: '127.0.0.1:8085',
      [ENV.port]: '9090',
      [ENV.host]: '0.0.0.0',
      SOME_SECRET: 'value',
    };
    const config = readFunctionConfig(env);
    assert.equal(config.project, 'shop-project');
    assert.equal(config.storeBatchMs, 2);
    assert.equal(config.firstWindowMs, 15_000);
    assert.equal(config.pubsubEmulatorHost, '127.0.0.1:8085');
    assert.deepEqual(config.listen, { host: '0.0.0.0', port: 9090 });
    // Secrets looked up by name read the same environment (adapters/secrets.ts).
    assert.equal(config.secretEnv['SOME_SECRET'], 'value');
    assert.ok(Object.isFrozen(config) && Object.isFrozen(config.listen));
  });

  it('leaves out what is not set: the writer’s batch window, no emulator, loopback on 8080', () => {
    const config = readFunctionConfig({ [ENV.settings]: SETTINGS });
    assert.equal('storeBatchMs' in config, false);
    assert.equal('firstWindowMs' in config, false);
    assert.equal('pubsubEmulatorHost' in config, false);
    assert.deepEqual(config.listen, { host: '127.0.0.1', port: 8080 });
    assert.deepEqual(listenAddress({}, 8090), { host: '127.0.0.1', port: 8090 });
  });

  it('refuses a batch window, a first window or a port that is not a number, naming the variable', () => {
    assert.throws(
      () => readFunctionConfig({ [ENV.settings]: SETTINGS, [ENV.storeBatchMs]: 'soon' }),
      /EVENTBUS_STORE_BATCH_MS is not a number of milliseconds: soon/,
    );
    for (const bad of ['soon', '0', '-5', '1.5'])
      assert.throws(
        () => readFunctionConfig({ [ENV.settings]: SETTINGS, [ENV.firstWindowMs]: bad }),
        new RegExp(`EVENTBUS_FIRST_WINDOW_MS is not a whole number of milliseconds above 0: ${bad}`),
      );
    assert.throws(
      () => readFunctionConfig({ [ENV.settings]: SETTINGS, [ENV.port]: 'http' }),
      /PORT is not a port: http/,
    );
  });
});

/**
 * Each deployable reads the process environment in one place, its entry's one configuration
 * call, and passes the value down: a second read elsewhere (a variable looked up in a handler,
 * a helper handed process.env again) fails here.
 */
describe('architecture: one configuration read per deployable', () => {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const files = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() && e.name !== 'web'
        ? files(join(dir, e.name))
        : e.name.endsWith('.ts')
          ? [join(dir, e.name)]
          : [],
    );
  const code = (file: string) =>
    readFileSync(join(root, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
  // What each deployable runs (its folder and the shared functions/*.ts), the one module that
  // reads the environment, and the call it hands it to.
  const shared = ['functions/serve.ts', 'functions/answer.ts'];
  const DEPLOYABLES = [
    {
      name: 'store',
      files: [...files('functions/store'), ...shared],
      entry: 'functions/store/index.ts',
      read: /readFunctionConfig\(process\.env,/,
    },
    {
      name: 'forward',
      files: [...files('functions/forward'), ...shared],
      entry: 'functions/forward/index.ts',
      read: /readFunctionConfig\(process\.env,/,
    },
    {
      name: 'schedule',
      files: [...files('functions/schedule'), ...shared],
      entry: 'functions/schedule/index.ts',
      read: /readFunctionConfig\(process\.env,/,
    },
    {
      name: 'gateway',
      files: files('gateway'),
      entry: 'gateway/main.ts',
      read: /startGatewayFromEnv\(process\.env\)/,
    },
    { name: 'studio', files: files('studio'), entry: 'studio/main.ts', read: /const env = process\.env;/ },
  ];

  for (const d of DEPLOYABLES)
    it(`${d.name}: process.env is read once, in ${d.entry}, by its configuration call`, () => {
      const reads = d.files.flatMap((f) => [...code(f).matchAll(/process\.env\b/g)].map(() => f));
      assert.deepEqual(reads, [d.entry]);
      assert.match(code(d.entry), d.read);
    });

  it('the core and the adapters the deployables import never read it', () => {
    const readers = [...files('core'), ...files('adapters')].filter((f) => /process\.env\b/.test(code(f)));
    assert.deepEqual(readers, []);
  });
});
