/**
 * The functions slot: the real functions-framework CLI loads an ESM TypeScript source on
 * Node 24 (type stripping), listens on 127.0.0.1 only and gets the runtime env.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { functionService } from '../../local/services.ts';
import { readSettingsFile } from '../../local/settings-file.ts';
import { type LocalEnvironment, startEnvironment } from '../../local/supervisor.ts';

const root = resolve(import.meta.dirname, '../..');

describe('local supervisor: a function under the functions-framework CLI', () => {
  let dir: string;
  let env: LocalEnvironment | undefined;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-function-'));
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    // Type annotations and `import type` prove the source is stripped, not transpiled elsewhere.
    writeFileSync(
      join(dir, 'index.ts'),
      `import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
interface Reply { status(code: number): { json(body: unknown): void } }
export function store(req: IncomingMessage, res: Reply): void {
  // The settings come in a file (EVENTBUS_SETTINGS_FILE), as on Google Cloud.
  const settings: { name: string } = JSON.parse(readFileSync(process.env.EVENTBUS_SETTINGS_FILE ?? '', 'utf8'));
  res.status(200).json({ method: req.method, env: settings.name, node: process.env.NODE_ENV,
    pubsub: process.env.PUBSUB_EMULATOR_HOST, tokens: process.env.EVENTBUS_TOKEN_STORE });
}
`,
    );
  });
  after(async () => {
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the function on 127.0.0.1 with the runtime env', async () => {
    env = await startEnvironment({
      settings: readSettingsFile(join(root, 'environments/local.yaml')),
      dataDir: join(dir, 'data'),
      freePorts: true,
      provision: false,
      log: () => {},
      services: [(ctx) => functionService(ctx, 'store', join(dir, 'index.ts'))],
    });
    const res = await fetch(env.urls['store'] as string, { method: 'POST', body: '{}' });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      method: 'POST',
      env: 'local',
      node: 'production',
      pubsub: `127.0.0.1:${env.ports.pubsub}`,
      tokens: `file:${join(dir, 'data', 'tokens.json')}`,
    });
  });
});
