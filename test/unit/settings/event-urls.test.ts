/**
 * Event-chosen URLs are an opt-in, enforced (issue #98): a segment_action mapping that reads its
 * URL or headers from the event is refused, not warned about, at every entry that reads settings
 * (`settings check`, `start`, the functions' cold start, the Pulumi program), unless its
 * destination sets `allow_event_urls` and `allowed_hosts`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { readRuntimeConfig } from '../../../core/runtime-config.ts';
import { checkSettings, parseSettings } from '../../../core/settings.ts';
import { loadStackConfig } from '../../../infra/config.ts';
import { readSettingsFile, SettingsFileError } from '../../../local/settings-file.ts';
import { startEnvironment } from '../../../local/supervisor.ts';
import { runCli as cli } from '../../support/cli.ts';

const base = { name: 'prod', project: 'some-project', region: 'europe-west1' };

/** The relay: Segment's Webhook action whose URL (or a header) comes from the event. */
function relay(mapping: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    ...base,
    destinations: [
      {
        id: 'hook',
        type: 'segment_action',
        destination: 'webhook',
        actions: [{ action: 'send', when: ['purchase'], mapping }],
        ...extra,
      },
    ],
  };
}

const FROM_EVENT: readonly [string, Record<string, unknown>][] = [
  ['url', { url: { '@path': '$.properties.callback' } }],
  [
    'headers',
    { url: 'https://hooks.example.com/x', headers: { Authorization: { '@path': '$.properties.auth' } } },
  ],
  ['url by template', { url: { '@template': 'https://{{properties.host}}/x' } }],
];

const FIELD = /^destinations\[0\]\.actions\[0\]\.mapping\.(url|headers)$/;

describe('settings: an event-chosen URL without the opt-in is refused at every entry', () => {
  // One folder for the files the entries read, removed with the suite.
  const dir = mkdtempSync(join(tmpdir(), 'eventbus-event-urls-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A settings file of the value, as an operator would write it. */
  const fileOf = (name: string, value: unknown) => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, stringify(value));
    return file;
  };

  for (const [name, mapping] of FROM_EVENT) {
    it(`checkSettings and parseSettings refuse a mapping reading its ${name} from the event`, () => {
      const r = checkSettings(relay(mapping));
      assert.ok(!r.ok);
      assert.ok(
        r.errors.some(
          (e) => FIELD.test(e.field) && /allow_event_urls: true with allowed_hosts/.test(e.description),
        ),
        JSON.stringify(r.errors),
      );
      assert.equal(parseSettings(stringify(relay(mapping))).ok, false);
    });

    it(`the opt-in needs both keys (${name})`, () => {
      assert.equal(checkSettings(relay(mapping, { allow_event_urls: true })).ok, false, 'no allowed_hosts');
      assert.equal(
        checkSettings(relay(mapping, { allowed_hosts: ['hooks.example.com'] })).ok,
        false,
        'no opt-in',
      );
      assert.equal(
        checkSettings(relay(mapping, { allow_event_urls: true, allowed_hosts: ['hooks.example.com'] })).ok,
        true,
      );
    });
  }

  it('a URL written in the mapping is not an event-chosen one', () => {
    assert.equal(
      checkSettings(relay({ url: 'https://hooks.example.com/x', data: { '@path': '$.properties' } })).ok,
      true,
    );
  });

  it('settings check: exit 1 naming the key', async () => {
    const r = await cli('settings', 'check', fileOf('cli', relay(FROM_EVENT[0]?.[1] ?? {})));
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /destinations\[0\]\.actions\[0\]\.mapping\.url: is read from the event/);
  });

  it('start: refused before anything starts', async () => {
    const file = fileOf('start', relay(FROM_EVENT[0]?.[1] ?? {}));
    assert.throws(() => readSettingsFile(file), SettingsFileError);
    await assert.rejects(
      startEnvironment({ env: file, dataDir: join(dir, 'data'), log: () => {} }),
      (err: Error) =>
        err instanceof SettingsFileError && /mapping\.url: is read from the event/.test(err.message),
    );
  });

  it("a function's cold start: refused", () => {
    assert.throws(
      () => readRuntimeConfig({ EVENTBUS_SETTINGS: JSON.stringify(relay(FROM_EVENT[1]?.[1] ?? {})) }),
      /mapping\.headers: is read from the event/,
    );
  });

  it('deploy (the Pulumi program): refused', () => {
    const file = fileOf('deploy', relay(FROM_EVENT[0]?.[1] ?? {}));
    assert.throws(
      () => loadStackConfig({ project: base.project, region: base.region, settingsFile: file }),
      /mapping\.url: is read from the event/,
    );
  });
});
