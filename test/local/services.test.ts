/** localSettings: what follows the ports when the local environment does not run on the defaults. */
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { DEFAULT_PORTS, localSettings, pubsubEmulator, storageEmulator } from '../../local/services.ts';
import { readSettingsFile } from '../../local/settings-file.ts';

const root = resolve(import.meta.dirname, '../..');
const settings = readSettingsFile(join(root, 'environments/local.yaml'));
const shifted = Object.fromEntries(
  Object.entries(DEFAULT_PORTS).map(([k, p]) => [k, p + 1000]),
) as typeof DEFAULT_PORTS;

describe('local settings under moved ports', () => {
  it('moves producers.origins that name a local service port, as destinations follow the receiver', () => {
    const moved = localSettings(
      {
        ...settings,
        producers: {
          ...settings.producers,
          origins: [
            'http://localhost:8099',
            'http://127.0.0.1:8080',
            'https://shop.example',
            'http://localhost:3000',
          ],
        },
      },
      shifted,
    );
    assert.deepEqual(moved.producers?.origins, [
      'http://localhost:9099',
      'http://127.0.0.1:9080',
      'https://shop.example',
      'http://localhost:3000',
    ]);
    assert.ok(moved.destinations?.every((d) => !d.base_url?.includes(':8099')));
  });

  it('leaves the settings as they are on the default ports', () => {
    assert.equal(localSettings(settings, DEFAULT_PORTS), settings);
  });
});

/** The context of an environment on the shifted ports. */
const shiftedContext = () => ({
  root,
  dataDir: '/tmp/d',
  logDir: '/tmp/l',
  ports: shifted,
  settings,
  project: 'p',
  node: process.execPath,
});

describe('the local Pub/Sub emulator', () => {
  it('is given the local BigQuery and Storage emulators, which its export subscriptions write into', () => {
    const spec = pubsubEmulator(shiftedContext());
    const flagValue = (flag: string): string | undefined => spec.args[spec.args.indexOf(flag) + 1];
    assert.equal(flagValue('--bigquery-endpoint'), `http://127.0.0.1:${shifted.bigquery}`);
    assert.equal(flagValue('--storage-endpoint'), `http://127.0.0.1:${shifted.storage}`);
  });
});

describe('the local Cloud Storage emulator', () => {
  it('is given the local Pub/Sub emulator, which its bucket notifications publish to', () => {
    const spec = storageEmulator(shiftedContext());
    assert.equal(spec.args[spec.args.indexOf('--pubsub-endpoint') + 1], `http://127.0.0.1:${shifted.pubsub}`);
  });
});
