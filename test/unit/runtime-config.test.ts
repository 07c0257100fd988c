/**
 * Settings reach a workload in a file (EVENTBUS_SETTINGS_FILE), read once at cold start, the
 * same way for `npm start` and Google Cloud: Cloud Run caps one environment variable's value at
 * 32 KiB, which settings with many destinations or connections outgrow.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readSettingsText } from '../../adapters/settings-file.ts';
import { ENV, readRuntimeConfig } from '../../core/runtime-config.ts';
import { parseSettings } from '../../core/settings.ts';
import type { Settings } from '../../schemas/settings.ts';

const CLOUD_RUN_VALUE_LIMIT = 32 * 1024;

/** The example settings with enough webhook destinations to pass `bytes` as JSON. */
function largeSettings(bytes: number): Settings {
  const text = readFileSync(resolve(import.meta.dirname, '../../environments/example.yaml'), 'utf8');
  const result = parseSettings(text);
  assert.ok(result.ok);
  const base = structuredClone(result.settings) as Settings;
  const destinations = [...(base.destinations ?? [])];
  for (let i = 0; JSON.stringify({ ...base, destinations }).length <= bytes; i++) {
    destinations.push({
      id: `partner_${i}`,
      type: 'webhook',
      base_url: `https://partner-${i}.example.com`,
      config: { path: `/hooks/eventbus/${'x'.repeat(40)}` },
      secrets: { signing_key: `partner-${i}-signing-key` },
      events: { allow: ['purchase', 'lead', 'quote_requested', 'view_content'] },
    } as NonNullable<Settings['destinations']>[number]);
  }
  return { ...base, destinations };
}

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
