/**
 * Settings reach a workload in a file (EVENTBUS_SETTINGS_FILE), read once at cold start, the
 * same way for `npm start` and Google Cloud: Cloud Run caps one environment variable's value at
 * 32 KiB, which settings with many destinations or connections outgrow.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSettingsText } from '../../adapters/settings-file.ts';
import { ENV, readRuntimeConfig } from '../../core/runtime-config.ts';
import { CLOUD_RUN_VALUE_LIMIT, largeSettings } from '../support/large-settings.ts';

describe('runtime config: settings from a file', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-runtime-config-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

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
