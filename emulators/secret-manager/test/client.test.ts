/**
 * Google's own Secret Manager client (`@google-cloud/secret-manager`) against the emulator, in its
 * REST transport (`fallback: true`: google-gax's HTTP/1.1 JSON mapping of the v1 API, the same
 * surface `adapters/secrets.ts` calls). The emulator serves no gRPC, so the client's default
 * transport is out of scope. Errors arrive as the client maps Google's: a gRPC status code.
 */
import assert from 'node:assert/strict';
import { GRPC, rejectsWithCode } from '@eventbus/emulator-common/test-support/grpc-codes.ts';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { OAuth2Client } from 'google-auth-library';
import { NUMBER, PROJECT, type Running, start } from './support/harness.ts';

/** The client's own auth type: google-gax carries its own google-auth-library copy. */
type ClientAuth = NonNullable<
  NonNullable<ConstructorParameters<typeof SecretManagerServiceClient>[0]>['authClient']
>;

describe('secret manager emulator: the Google client in REST mode', () => {
  let run: Running;
  let client: SecretManagerServiceClient;
  const parent = `projects/${PROJECT}`;
  before(async () => {
    run = await start();
    const url = new URL(run.emulator.url);
    const authClient = new OAuth2Client();
    authClient.setCredentials({ access_token: 'emulator', expiry_date: Date.now() + 3_600_000 });
    client = new SecretManagerServiceClient({
      fallback: true,
      apiEndpoint: url.hostname,
      port: Number(url.port),
      protocol: 'http',
      authClient: authClient as unknown as ClientAuth,
    });
  });
  after(async () => {
    await client.close();
    await run.stop();
  });

  it('creates a secret (named by project number), refuses a second, lists and reads it', async () => {
    const [secret] = await client.createSecret({
      parent,
      secretId: 'client-api-key',
      secret: { replication: { automatic: {} }, labels: { team: 'data' } },
    });
    assert.equal(secret.name, `projects/${NUMBER}/secrets/client-api-key`);
    assert.deepEqual(secret.labels, { team: 'data' });
    await rejectsWithCode(
      client.createSecret({ parent, secretId: 'client-api-key', secret: { replication: { automatic: {} } } }),
      GRPC.ALREADY_EXISTS,
    );
    const [got] = await client.getSecret({ name: `${parent}/secrets/client-api-key` });
    assert.equal(got.name, secret.name);
    const [listed] = await client.listSecrets({ parent });
    assert.ok(listed.some((s) => s.name === secret.name));
  });

  it('adds versions and accesses latest and by number; a missing secret is NOT_FOUND', async () => {
    const name = `${parent}/secrets/client-versions`;
    await client.createSecret({
      parent,
      secretId: 'client-versions',
      secret: { replication: { automatic: {} } },
    });
    const [v1] = await client.addSecretVersion({ parent: name, payload: { data: Buffer.from('first') } });
    const [v2] = await client.addSecretVersion({ parent: name, payload: { data: Buffer.from('second') } });
    assert.equal(v1.name, `projects/${NUMBER}/secrets/client-versions/versions/1`);
    assert.equal(v2.state, 'ENABLED');
    const [latest] = await client.accessSecretVersion({ name: `${name}/versions/latest` });
    assert.equal(Buffer.from(latest.payload?.data as Uint8Array).toString(), 'second');
    const [first] = await client.accessSecretVersion({ name: `${name}/versions/1` });
    assert.equal(Buffer.from(first.payload?.data as Uint8Array).toString(), 'first');
    await rejectsWithCode(
      client.accessSecretVersion({ name: `${parent}/secrets/nope/versions/latest` }),
      GRPC.NOT_FOUND,
    );
  });

  it('a disabled version is FAILED_PRECONDITION to access; an id Google refuses is INVALID_ARGUMENT', async () => {
    const name = `${parent}/secrets/client-states`;
    await client.createSecret({
      parent,
      secretId: 'client-states',
      secret: { replication: { automatic: {} } },
    });
    await client.addSecretVersion({ parent: name, payload: { data: Buffer.from('x') } });
    const [disabled] = await client.disableSecretVersion({ name: `${name}/versions/1` });
    assert.equal(disabled.state, 'DISABLED');
    await rejectsWithCode(
      client.accessSecretVersion({ name: `${name}/versions/1` }),
      GRPC.FAILED_PRECONDITION,
    );
    await rejectsWithCode(
      client.createSecret({ parent, secretId: 'not a valid id', secret: { replication: { automatic: {} } } }),
      GRPC.INVALID_ARGUMENT,
    );
  });

  it("sets a secret's IAM policy and answers testIamPermissions", async () => {
    const resource = `${parent}/secrets/client-iam`;
    await client.createSecret({ parent, secretId: 'client-iam', secret: { replication: { automatic: {} } } });
    const member = 'serviceAccount:gateway@local-project.iam.gserviceaccount.com';
    await client.setIamPolicy({
      resource,
      policy: { bindings: [{ role: 'roles/secretmanager.secretAccessor', members: [member] }] },
    });
    const [policy] = await client.getIamPolicy({ resource });
    assert.deepEqual(
      policy.bindings?.map((b) => [b.role, b.members]),
      [['roles/secretmanager.secretAccessor', [member]]],
    );
    // The caller here is the emulator's owner (no identity port): it holds every permission asked.
    const [held] = await client.testIamPermissions({
      resource,
      permissions: ['secretmanager.versions.access'],
    });
    assert.deepEqual(held.permissions, ['secretmanager.versions.access']);
  });
});
