/**
 * `node local/receiver/main.ts [--port 8099] [--host 127.0.0.1]`: the local receiver for
 * the example destinations of the environment in EVENTBUS_SETTINGS. Webhook signing keys
 * are read like the forward function reads them (env, then EVENTBUS_SECRETS_DIR).
 */
import { parseArgs } from 'node:util';
import { createSecrets } from '../../functions/adapters/secrets.ts';
import { readRuntimeConfig } from '../../functions/config.ts';
import { startReceiver } from './server.ts';

const { values } = parseArgs({
  options: { port: { type: 'string' }, host: { type: 'string' } },
  allowPositionals: false,
});
const config = readRuntimeConfig(process.env);
const secrets = createSecrets({ env: process.env, secretsDir: config.secretsDir, project: config.project });
const host = values.host ?? process.env['HOST'] ?? '127.0.0.1';
const port = Number(values.port ?? process.env['PORT'] ?? 8099);
const webhooks = (config.settings.destinations ?? []).filter((d) => d.type === 'webhook');

const receiver = await startReceiver({
  host,
  port,
  webhooks,
  signingKey: async (d) => {
    const name = d.secrets?.['signing_key'];
    return name === undefined ? undefined : secrets.get(name);
  },
});
console.log(`receiver listening on ${receiver.url} (page: ${receiver.url}/)`);
const stop = () => {
  receiver.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
