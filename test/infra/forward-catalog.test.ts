/**
 * forward-catalog's deploy shape (issue #65, docs/deploy.md "Catalogue destinations") under
 * Pulumi's mocks: declared only when a `segment_action` destination exists, a gen2 Cloud Function
 * with its own account and the grants forward has for the destinations it delivers to, pushed by
 * those destinations' own subscriptions; and adding the first one to a deployed environment
 * creates its function and subscriptions and replaces nothing.
 */
import assert from 'node:assert/strict';
import { accessNeeds, workloadMember } from '../../core/access/needs.ts';
import { CATALOG_ENTRY_POINT, CATALOG_FUNCTION } from '../../core/deploy/catalog-function.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { googleSheetsDestination } from '../support/google-sheets.ts';
import { isBinding, policiesOf, unmet } from './access-support.ts';
import { BUNDLES, type Declared, declare, ofType, type Recorded } from './support.ts';
import {
  AS_WEBHOOK,
  bundlesOf,
  configOf,
  exampleWithCatalog,
  KLAVIYO,
  withDestinations,
} from './support-catalog.ts';
import { example, minimal } from './support-functions.ts';

const T = {
  function: 'gcp:cloudfunctionsv2/function:Function',
  account: 'gcp:serviceaccount/account:Account',
  subscription: 'gcp:pubsub/subscription:Subscription',
  topic: 'gcp:pubsub/topic:Topic',
  object: 'gcp:storage/bucketObject:BucketObject',
  invoker: 'gcp:cloudrunv2/serviceIamMember:ServiceIamMember',
  exclusion: 'gcp:logging/projectExclusion:ProjectExclusion',
  secretVersion: 'gcp:secretmanager/secretVersion:SecretVersion',
  table: 'gcp:bigquery/table:Table',
} as const;
const PROJECT = 'acme-outdoor-prod';
const SA = `eventbus-${CATALOG_FUNCTION}@${PROJECT}.iam.gserviceaccount.com`;
const uri = (service: string) => `https://${service}-mock-ew.a.run.app`;

const declared = (settings: ReturnType<typeof example>) =>
  declare(() => declareEnvironment(configOf(settings), bundlesOf(settings)));
const mentionsCatalog = (d: Declared) => JSON.stringify(d).includes(CATALOG_FUNCTION);

describe('infra: forward-catalog, the catalogue destinations’ function (issue #65)', function () {
  this.timeout(60_000);
  let without: Recorded;
  let after: Recorded;
  before(async () => {
    without = await declare(() => declareEnvironment(configOf(example()), BUNDLES));
    after = await declared(exampleWithCatalog());
  });

  it('is not declared where no destination is a catalogue one (the example, the minimal settings)', async () => {
    for (const recorded of [without, await declared(minimal())])
      assert.deepEqual(
        recorded.resources.filter(mentionsCatalog).map((d) => d.name),
        [],
      );
  });

  it('is a gen2 Cloud Function on nodejs24 from its own bundle, as its own account, invoked by the push identity only', () => {
    const fn = ofType(after, T.function).find((d) => d.inputs['name'] === CATALOG_FUNCTION);
    assert.ok(fn, 'declared');
    assert.equal(fn.inputs['buildConfig'].runtime, 'nodejs24');
    assert.equal(fn.inputs['buildConfig'].entryPoint, CATALOG_ENTRY_POINT);
    const object = ofType(after, T.object).find((d) => d.name.endsWith(`-source-${CATALOG_FUNCTION}`));
    assert.equal(object?.inputs['name'], `${CATALOG_FUNCTION}-0123456789abcdef.zip`);
    assert.equal(fn.inputs['buildConfig'].source.storageSource.object, object?.inputs['name']);
    const s = fn.inputs['serviceConfig'];
    assert.equal(s.serviceAccountEmail, SA);
    assert.equal(s.availableMemory, '1Gi');
    assert.equal(s.minInstanceCount, 0, 'idle costs nothing: it scales to zero');
    assert.equal(s.ingressSettings, 'ALLOW_ALL');
    const account = ofType(after, T.account).find(
      (d) => d.inputs['accountId'] === `eventbus-${CATALOG_FUNCTION}`,
    );
    assert.ok(account, 'its own service account');
    const invokers = ofType(after, T.invoker).filter((d) => d.name.endsWith(`-invoker-${CATALOG_FUNCTION}`));
    assert.deepEqual(
      invokers.map((d) => [d.inputs['role'], d.inputs['member']]),
      [['roles/run.invoker', `serviceAccount:eventbus-push@${PROJECT}.iam.gserviceaccount.com`]],
    );
  });

  it('is pushed by the catalogue destination’s subscriptions, with the filter, retry and dead-letter policy forward’s would have', async () => {
    const asWebhook = await declared(withDestinations(example(), AS_WEBHOOK));
    const subs = (r: Recorded) =>
      new Map(ofType(r, T.subscription).map((d) => [String(d.inputs['name']), d.inputs]));
    const catalog = subs(after);
    const forward = subs(asWebhook);
    for (const name of ['deliveries-klaviyo-push', 'deliveries-klaviyo-dead-letter-ledger']) {
      const got = catalog.get(name);
      const usual = forward.get(name);
      assert.ok(got && usual, name);
      assert.equal(got['pushConfig'].pushEndpoint, uri(CATALOG_FUNCTION), name);
      assert.equal(usual['pushConfig'].pushEndpoint, uri('forward-function'), name);
      const { pushConfig: a, ...restCatalog } = got;
      const { pushConfig: b, ...restForward } = usual;
      assert.deepEqual(restCatalog, restForward, `${name}: only the endpoint differs`);
      assert.equal(a.oidcToken.serviceAccountEmail, b.oidcToken.serviceAccountEmail);
    }
    assert.equal(
      catalog.get('deliveries-klaviyo-push')?.['topic'],
      `projects/${PROJECT}/topics/deliveries-klaviyo`,
    );
    // The other destinations stay on forward.
    for (const id of ['meta', 'ga4', 'crm'])
      assert.equal(
        catalog.get(`deliveries-${id}-push`)?.['pushConfig'].pushEndpoint,
        uri('forward-function'),
        id,
      );
  });

  it('can do what its code calls and no more: its destinations’ secrets, not forward’s, and forward not its', async () => {
    const config = configOf(exampleWithCatalog());
    const policies = policiesOf(after.resources.filter(isBinding), PROJECT);
    const needs = accessNeeds(config.plan, config.settings);
    const own = needs.filter((n) => n.who === CATALOG_FUNCTION);
    assert.ok(own.some((n) => n.resource.endsWith(`/secrets/${KLAVIYO.secrets?.['api_key']}`) && !n.denied));
    assert.ok(own.some((n) => n.resource.endsWith('/secrets/meta-capi-token') && n.denied));
    assert.ok(
      needs.some(
        (n) => n.who === 'forward' && n.resource.endsWith('/secrets/klaviyo-private-key') && n.denied,
      ),
    );
    assert.deepEqual(unmet(needs, policies, PROJECT), []);
    // The mutation run over its bindings: each one is needed by some row.
    const member = workloadMember(CATALOG_FUNCTION, PROJECT);
    const bindings = after.resources.filter(isBinding);
    const its = bindings.filter((b) => b.inputs['member'] === member);
    assert.ok(its.length >= 5, `${its.length} bindings`);
    const unneeded = its.filter(
      (removed) =>
        unmet(
          needs,
          policiesOf(
            bindings.filter((b) => b !== removed),
            PROJECT,
          ),
          PROJECT,
        ).length === 0,
    );
    assert.deepEqual(
      unneeded.map((b) => b.name),
      [],
    );
  });

  it('may write a rotated OAuth refresh token back and claim a refresh: Version Manager on that secret alone (issue #100)', async () => {
    const settings = {
      ...withDestinations(example(), googleSheetsDestination('sheet-1', 'google')),
      connections: [
        {
          id: 'google',
          type: 'oauth2' as const,
          secrets: {
            client_id: 'google-client-id',
            client_secret: 'google-client-secret',
            refresh_token: 'google-refresh',
          },
        },
      ],
    };
    const config = configOf(settings);
    const recorded = await declared(settings);
    const bindings = recorded.resources.filter(isBinding);
    const needs = accessNeeds(config.plan, config.settings);
    const rotation = needs.filter(
      (n) => n.who === CATALOG_FUNCTION && n.code === 'adapters/secret-versions.ts',
    );
    assert.deepEqual(
      rotation.map((n) => [n.permission, n.resource]),
      ['get', 'disable', 'enable', 'add'].map((v) => [
        `secretmanager.versions.${v}`,
        `projects/${PROJECT}/secrets/google-refresh`,
      ]),
    );
    assert.deepEqual(unmet(needs, policiesOf(bindings, PROJECT), PROJECT), []);
    const managers = bindings.filter((b) => b.inputs['role'] === 'roles/secretmanager.secretVersionManager');
    assert.deepEqual(
      managers.filter((b) => b.inputs['member'] === `serviceAccount:${SA}`).map((b) => b.inputs['secretId']),
      ['google-refresh'],
      'the refresh token only: not the client id or secret',
    );
  });

  it('upgrades in one pulumi up: adding the first catalogue destination creates its function and subscriptions, replaces nothing', () => {
    const key = (d: Declared) => `${d.type}::${d.name}`;
    const old = new Map(without.resources.map((d) => [key(d), d]));
    const now = new Map(after.resources.map((d) => [key(d), d]));
    assert.deepEqual(
      [...old.keys()].filter((k) => !now.has(k)),
      [],
      'nothing of the old state leaves the program',
    );
    const created = [...now.values()].filter((d) => !old.has(key(d)));
    assert.deepEqual(
      created.filter((d) => !mentionsCatalog(d) && !JSON.stringify(d).includes('klaviyo')).map(key),
      [],
      'everything created is forward-catalog’s or the new destination’s',
    );
    for (const wanted of [
      `${T.function}::acme-prod-function-${CATALOG_FUNCTION}`,
      `${T.topic}::acme-prod-topic-deliveries-klaviyo`,
      `${T.subscription}::acme-prod-sub-deliveries-klaviyo-push`,
      `${T.subscription}::acme-prod-sub-deliveries-klaviyo-dead-letter-ledger`,
    ])
      assert.ok(now.has(wanted) && !old.has(wanted), `${wanted} is created`);
    // In place: the settings' new version (every settings change makes one), the request-log
    // exclusion, which now names forward-catalog's service too, and the reconciliation view, which
    // lists the settings' destinations (core/warehouse/reconciliation.ts). forward is unchanged.
    const changed = [...old.values()]
      .filter((d) => JSON.stringify(d.inputs) !== JSON.stringify(now.get(key(d))?.inputs))
      .map((d) => `${d.type}${d.type === T.table ? `::${d.name}` : ''}`);
    assert.deepEqual(
      changed.sort(),
      [T.exclusion, T.secretVersion, `${T.table}::acme-prod-view-reconciliation`].sort(),
    );
  });
});
