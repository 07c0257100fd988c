/**
 * Issue #76's named test, locally: the gateway reads a translator's signing secret from the
 * Secret Manager emulator as its own service account, under the grants `pulumi up` gives
 * (local/access-file.ts). With the gateway's translator grant removed from the access file, a
 * signed Stripe webhook gets the refusal the cloud would give (503, the vendor retries) and the
 * gateway logs a line naming `secretmanager.versions.access`; with the grant the program declares
 * (a project grant conditioned on `projects/<number>/secrets/eventbus-translator-`), the same
 * delivery is accepted and its event stored.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { stringify } from 'yaml';
import { readCatalogue } from '../../adapters/source-catalogue.ts';
import { plan as planOf } from '../../core/plan.ts';
import { sourceTranslator } from '../../core/translate/sources.ts';
import { TRANSLATOR_SECRET_PREFIX } from '../../core/translate/translator-secrets.ts';
import type { IamPolicy } from '../../emulators/common/iam-policy.ts';
import { readAccessFile, writeAccessFile } from '../../local/access-file.ts';
import { putSecret } from '../../local/local-secrets.ts';
import { environmentFile, readSettingsFile } from '../../local/settings-file.ts';
import { type LocalEnvironment, startEnvironment } from '../../local/supervisor.ts';
import { eventbusIn } from '../support/local-start.ts';
import { SOURCE_CASES, TEST_SECRET } from '../support/source-cases.ts';
import { until } from '../support/until.ts';

const settings = readSettingsFile(environmentFile('local'));
const SECRET = `${TRANSLATOR_SECRET_PREFIX}stripe`;
const isTranslatorGrant = (b: IamPolicy['bindings'][number]) =>
  b.condition?.expression.includes(`/secrets/${TRANSLATOR_SECRET_PREFIX}`) === true;

describe('local: a translator secret read as the gateway, under the grant pulumi up gives', function () {
  this.timeout(240_000);
  let env: LocalEnvironment;
  let dataDir: string;
  let declared: readonly IamPolicy[];
  const stripe = SOURCE_CASES.find((c) => c.source === 'stripe');
  assert.ok(stripe);

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'translator-secret-'));
    env = await startEnvironment({ settings, dataDir, freePorts: true, tickSeconds: 0, log: () => {} });
    declared = readAccessFile(dataDir)?.policies ?? [];
    const source = readCatalogue().find((s) => s.name === 'stripe');
    assert.ok(source);
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const applied = await fetch(`${env.urls['studio']}/v1/admin/apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ documents: [sourceTranslator(source)], dryRun: false }),
    });
    assert.equal(applied.status, 200, await applied.text());
    await putSecret(env.urls['secret-manager'] as string, settings.project, SECRET, TEST_SECRET);
  });
  after(async () => {
    await env?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const deliver = async (): Promise<Response> => {
    const now = Math.floor(Date.now() / 1000);
    const body = stripe.body(now);
    const url = `${env.urls['gateway']}/v1/translators/stripe`;
    const headers = { 'content-type': stripe.contentType, ...(await stripe.headers(body, url, now)) };
    // 404 until the gateway has read the new translator.
    return until(
      'the stripe translator live',
      async () => {
        const r = await fetch(url, { method: 'POST', headers, body });
        return r.status === 404 ? undefined : r;
      },
      60_000,
    );
  };

  it('the program declares the gateway a conditioned grant on the prefix, with the project number', () => {
    const grant = declared.flatMap((p) => p.bindings).find(isTranslatorGrant);
    assert.ok(grant, 'the access file holds the translator grant');
    assert.match(grant.condition?.expression ?? '', /projects\/\d+\/secrets\/eventbus-translator-/);
    assert.deepEqual(grant.members, [
      `serviceAccount:eventbus-gateway@${settings.project}.iam.gserviceaccount.com`,
    ]);
  });

  it('without the grant: refused as in the cloud, and the log names secretmanager.versions.access', async () => {
    writeAccessFile(
      dataDir,
      declared.map((p) => ({ ...p, bindings: p.bindings.filter((b) => !isTranslatorGrant(b)) })),
    );
    await new Promise((r) => setTimeout(r, 400)); // the emulator looks at the file every 200 ms
    const res = await deliver();
    assert.equal(res.status, 503, await res.clone().text());
    assert.ok(res.headers.get('retry-after'), 'the vendor is told to retry');
    const log = await until(
      'the gateway logs the refusal',
      async () => {
        const text = readFileSync(join(env.logDir, 'gateway.log'), 'utf8');
        return text.split('\n').find((l) => l.includes('secretmanager.versions.access'));
      },
      10_000,
    );
    assert.match(log, new RegExp(`signing secret ${SECRET}`));
    assert.match(log, /eventbus-gateway@/);
  });

  it('with the grant the program declares: accepted, and the event is stored', async () => {
    writeAccessFile(dataDir, declared);
    await new Promise((r) => setTimeout(r, 400));
    const res = await deliver();
    assert.equal(res.status, 200, await res.clone().text());
    const bigquery = new BigQuery({
      projectId: settings.project,
      apiEndpoint: env.urls['bigquery'] as string,
    });
    const dataset = planOf(settings).dataset;
    const rows = await until(
      'the event stored',
      async () => {
        const [r] = await bigquery.query({
          query: `SELECT event_id FROM \`${dataset}.events\` WHERE event_id = 'evt_00000000000000'`,
        });
        return r.length > 0 ? r : undefined;
      },
      60_000,
    );
    assert.equal(rows.length, 1);
  });

  it('`eventbus apply` of a translator naming a secret the gateway cannot read prints the grant command', async () => {
    const source = readCatalogue().find((s) => s.name === 'stripe');
    assert.ok(source);
    const withSecret = (name: string, secret: string) => {
      const doc = sourceTranslator(source, { name });
      const auth = (doc.spec as { auth: { signature: { secrets: string[] } } }).auth;
      auth.signature.secrets = [secret];
      return doc;
    };
    await putSecret(env.urls['secret-manager'] as string, settings.project, 'STRIPE_OTHER_KEY', TEST_SECRET);
    const file = join(dataDir, 'translators.yaml');
    writeFileSync(
      file,
      [withSecret('stripe-other', 'STRIPE_OTHER_KEY'), withSecret('stripe', SECRET)]
        .map((d) => stringify(d))
        .join('---\n'),
    );
    const out = await eventbusIn(dataDir)('apply', '-f', file);
    const gateway = `serviceAccount:eventbus-gateway@${settings.project}.iam.gserviceaccount.com`;
    assert.match(
      out,
      /translator stripe-other: the gateway .* cannot read its signing secret STRIPE_OTHER_KEY/,
    );
    assert.ok(
      out.includes(
        `gcloud secrets add-iam-policy-binding STRIPE_OTHER_KEY --project=${settings.project} --member=${gateway} --role=roles/secretmanager.secretAccessor`,
      ),
      out,
    );
    assert.ok(!out.includes(`secret ${SECRET}`), 'the prefixed secret is readable: nothing said');
    // Once granted as the command says, the same apply says nothing more.
    const granted = await fetch(
      `${env.urls['secret-manager']}/v1/projects/${settings.project}/secrets/STRIPE_OTHER_KEY:setIamPolicy`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          policy: { bindings: [{ role: 'roles/secretmanager.secretAccessor', members: [gateway] }] },
        }),
      },
    );
    assert.equal(granted.status, 200);
    const again = await eventbusIn(dataDir)('apply', '-f', file);
    assert.ok(!again.includes('add-iam-policy-binding'), again);
  });
});
