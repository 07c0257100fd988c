/**
 * The egress gate's allow-list as the local supervisor passes it (local/services.ts `runtimeEnv`):
 * the receiver, by both of its spellings, and the origins a bench or a test adds; never the
 * studio, the gateway or an emulator. The functions read it once (core/runtime-config.ts).
 */
import assert from 'node:assert/strict';
import { checkTarget } from '../../core/egress/policy.ts';
import { readFunctionConfig } from '../../core/runtime-config.ts';
import { DEFAULT_PORTS, type LocalContext, runtimeEnv } from '../../local/services.ts';
import type { Settings } from '../../schemas/settings.ts';

const settings = { name: 'local', project: 'local-project', region: 'europe-west1' } as Settings;
const ctx = (extra: Partial<LocalContext> = {}): LocalContext => ({
  root: '/repo',
  dataDir: '/data',
  logDir: '/data/logs',
  ports: DEFAULT_PORTS,
  settings,
  project: settings.project,
  node: process.execPath,
  ...extra,
});

describe('local: the egress allow-list the supervisor passes', () => {
  it('lets the functions reach the receiver and what the caller adds, and nothing else local', () => {
    const env = runtimeEnv(ctx({ egressAllow: ['http://127.0.0.1:40123'] }), 'forward');
    const allow = readFunctionConfig(env, () => JSON.stringify(settings)).egressAllow;
    const sent = (url: string) => !('refused' in checkTarget(url, allow));
    assert.ok(sent('http://127.0.0.1:8099/meta'));
    assert.ok(sent('http://localhost:8099/capture/x'));
    assert.ok(sent('http://127.0.0.1:40123/hook'));
    for (const port of [
      DEFAULT_PORTS.studio,
      DEFAULT_PORTS.gateway,
      DEFAULT_PORTS.pubsub,
      DEFAULT_PORTS.bigquery,
    ])
      assert.ok(!sent(`http://127.0.0.1:${port}/`), `port ${port} refused`);
  });
});
