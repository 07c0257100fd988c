/**
 * `eventbus connect <destination>` (issue #78): an oauth2 connection for an OAuth catalogue
 * destination, without a running environment (the Secret Manager commands are printed, never the
 * values): what Segment's refresh function reads is required, the settings to paste are printed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../support/cli.ts';

describe('cli: connect', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'eventbus-connect-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints where each credential goes and the settings, never a value', async () => {
    const r = await runCli(
      'connect',
      'google-sheets',
      '--id',
      'google',
      '--client-id',
      'client-123',
      '--client-secret',
      'very-secret',
      '--refresh-token',
      'refresh-456',
      '--data-dir',
      dataDir,
    );
    assert.equal(r.code, 0, r.err);
    for (const name of ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET', 'GOOGLE_REFRESH_TOKEN'])
      assert.match(
        r.out,
        new RegExp(
          `gcloud secrets create ${name} --project=\\S+ --replication-policy=automatic --data-file=- {3}# with data_residency: --replication-policy=user-managed --locations=<region>`,
        ),
      );
    assert.ok(!/client-123|very-secret|refresh-456/.test(r.out), r.out);
    assert.match(
      r.out,
      /connections:\n {2}- id: google\n {4}type: oauth2\n {4}secrets: \{ client_id: GOOGLE_CLIENT_ID, client_secret: GOOGLE_CLIENT_SECRET, refresh_token: GOOGLE_REFRESH_TOKEN \}\n/,
    );
    assert.match(r.out, /destination: google-sheets\n {4}connection: google\n/);
  });

  it('names what the destination’s refresh function reads when it is missing', async () => {
    const r = await runCli('connect', 'google-sheets', '--client-id', 'c', '--data-dir', dataDir);
    assert.notEqual(r.code, 0);
    assert.match(
      r.err,
      /google-sheets refreshes its token with Segment's refreshAccessToken, which reads --refresh-token, --client-secret/,
    );
  });

  it('a destination that cannot refresh needs an access token; one that is not OAuth is refused', async () => {
    const fb = await runCli('connect', 'facebook-custom-audiences', '--data-dir', dataDir);
    assert.notEqual(fb.code, 0);
    assert.match(fb.err, /facebook-custom-audiences cannot refresh a token: it needs --access-token/);
    const klaviyo = await runCli('connect', 'klaviyo', '--data-dir', dataDir);
    assert.notEqual(klaviyo.code, 0);
    assert.match(klaviyo.err, /klaviyo is not an OAuth catalogue destination/);
  });

  it('--stand-in needs the local environment running', async () => {
    const r = await runCli('connect', 'google-sheets', '--stand-in', '--data-dir', dataDir);
    assert.notEqual(r.code, 0);
    assert.match(r.err, /--stand-in needs the local environment running/);
  });
});
