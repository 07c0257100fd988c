/** Which token store `eventbus token|key` opens: the one the gateway of that environment reads. */
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { storeFor } from '../../../cli/commands/token.ts';
import { loadEnvironment } from '../../../cli/environment.ts';

const root = resolve(import.meta.dirname, '../../..');

describe('cli: token store of an environment', () => {
  it('a deployed environment: the Secret Manager secret plan() gives the gateway', async () => {
    const { plan } = await loadEnvironment('environments/example.yaml');
    const { store } = await storeFor({ env: 'environments/example.yaml' }, {});
    assert.equal(store.where, `secret:projects/acme-outdoor-prod/secrets/${plan.gateway.tokenSecret}`);
  });

  it('the local environment: <data dir>/tokens.json, where `npm start` puts the dev token', async () => {
    const { store } = await storeFor({ env: 'local', dataDir: '/tmp/x' }, {});
    assert.equal(store.where, `file:${join('/tmp/x', 'tokens.json')}`);
    const defaulted = await storeFor({ env: 'local' }, {});
    assert.equal(defaulted.store.where, `file:${join(root, '.data', 'tokens.json')}`);
  });

  it('--store wins over EVENTBUS_TOKEN_STORE, which wins over the environment default', async () => {
    const env = { EVENTBUS_TOKEN_STORE: 'secret:from-env' };
    const fromEnv = await storeFor({ env: 'environments/example.yaml' }, env);
    assert.match(fromEnv.store.where, /\/secrets\/from-env$/);
    const fromFlag = await storeFor({ env: 'environments/example.yaml', store: 'file:/tmp/t.json' }, env);
    assert.equal(fromFlag.store.where, 'file:/tmp/t.json');
  });

  it('GOOGLE_CLOUD_PROJECT overrides the settings project for the secret', async () => {
    const { store } = await storeFor(
      { env: 'environments/example.yaml' },
      { GOOGLE_CLOUD_PROJECT: 'other-project' },
    );
    assert.match(store.where, /^secret:projects\/other-project\/secrets\//);
  });
});
