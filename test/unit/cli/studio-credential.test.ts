/**
 * Which credential the CLI calls a studio with (cli/environment.ts): the admin token, a given
 * Google ID token, or one minted (Application Default Credentials in production; a stand-in
 * minter here, so no network) for the studio's audience, and what to run when none can be.
 */
import assert from 'node:assert/strict';
import { studioCredential, studioEndpoint } from '../../../cli/environment.ts';
import { CliError } from '../../../cli/output.ts';

const URL = 'https://studio-abc-ew.a.run.app';

describe('cli: the studio credential', () => {
  it('prefers the admin token, then a given ID token, then one minted for the audience', () => {
    const both = { EVENTBUS_ADMIN_TOKEN: 'adm', EVENTBUS_ID_TOKEN: 'idt' };
    assert.deepEqual(studioCredential(both, URL), { kind: 'admin-token', token: 'adm' });
    assert.deepEqual(studioCredential({ EVENTBUS_ID_TOKEN: 'idt' }, URL), { kind: 'id-token', token: 'idt' });
    assert.deepEqual(studioCredential({}, URL), { kind: 'google', audience: URL });
    assert.deepEqual(studioCredential({ EVENTBUS_ADMIN_TOKEN: '', EVENTBUS_STUDIO_AUDIENCE: 'aud-1' }, URL), {
      kind: 'google',
      audience: 'aud-1',
    });
  });

  it('mints only when neither token is given, for the audience', async () => {
    const asked: string[] = [];
    const mint = async (aud: string) => {
      asked.push(aud);
      return `minted-for-${aud}`;
    };
    const env = { EVENTBUS_STUDIO_URL: URL };
    assert.deepEqual(await studioEndpoint(env, undefined, mint), { url: URL, token: `minted-for-${URL}` });
    assert.deepEqual(await studioEndpoint({ ...env, EVENTBUS_ID_TOKEN: 'idt' }, undefined, mint), {
      url: URL,
      token: 'idt',
    });
    assert.deepEqual(asked, [URL]);
  });

  it('says what to run when no ID token can be minted', async () => {
    const mint = async () => {
      throw new Error('Cannot fetch ID token in this environment');
    };
    await assert.rejects(studioEndpoint({ EVENTBUS_STUDIO_URL: URL }, undefined, mint), (err: unknown) => {
      assert.ok(err instanceof CliError);
      assert.match(err.message, /cannot get a Google ID token for https:\/\/studio-abc.*in this environment/);
      // Impersonation, not a key file (iam.disableServiceAccountKeyCreation forbids keys).
      assert.match(
        err.message,
        /EVENTBUS_ID_TOKEN=\$\(gcloud auth print-identity-token --impersonate-service-account=<operator> --audiences=https:\/\/studio-abc/,
      );
      assert.doesNotMatch(err.message, /GOOGLE_APPLICATION_CREDENTIALS/);
      return true;
    });
  });
});
