import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESSION_SALT } from '../../core/access/gateway-secrets.ts';
import { monthlyBill, trafficShape, workloadsOf } from '../../core/deploy/bill.ts';
import { COLUMN_SECURITY_APIS, calledApis, REQUIRED_APIS } from '../../infra/apis.ts';
import { PII_COLUMNS } from '../../infra/column-security.ts';
import { loadStackConfig, type StackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { BUILD_ROLES } from '../../infra/identities.ts';
import {
  EMULATOR_VARIABLES,
  SETTINGS_FILE,
  SETTINGS_MOUNT,
  SETTINGS_SECRET,
} from '../../infra/runtime-env.ts';
import { STUDIO_APIS } from '../../infra/studio.ts';
import {
  BUNDLES,
  type Declared,
  declare,
  mockPolicyTag,
  ofType,
  PROJECT_NUMBER,
  type Recorded,
  resolveOutput,
} from './support.ts';

const T = {
  topic: 'gcp:pubsub/topic:Topic',
  subscription: 'gcp:pubsub/subscription:Subscription',
  topicMember: 'gcp:pubsub/topicIAMMember:TopicIAMMember',
  function: 'gcp:cloudfunctionsv2/function:Function',
  run: 'gcp:cloudrunv2/service:Service',
  runMember: 'gcp:cloudrunv2/serviceIamMember:ServiceIamMember',
  account: 'gcp:serviceaccount/account:Account',
  projectMember: 'gcp:projects/iAMMember:IAMMember',
  api: 'gcp:projects/service:Service',
  secret: 'gcp:secretmanager/secret:Secret',
  secretVersion: 'gcp:secretmanager/secretVersion:SecretVersion',
  secretMember: 'gcp:secretmanager/secretIamMember:SecretIamMember',
  dataset: 'gcp:bigquery/dataset:Dataset',
  table: 'gcp:bigquery/table:Table',
  datasetMember: 'gcp:bigquery/datasetIamMember:DatasetIamMember',
  tableMember: 'gcp:bigquery/iamMember:IamMember',
  bucket: 'gcp:storage/bucket:Bucket',
  object: 'gcp:storage/bucketObject:BucketObject',
  alert: 'gcp:monitoring/alertPolicy:AlertPolicy',
} as const;

const PROJECT = 'acme-outdoor-prod';
const sa = (workload: string) => `eventbus-${workload}@${PROJECT}.iam.gserviceaccount.com`;
const uri = (service: string) => `https://${service}-mock-ew.a.run.app`;

describe('infra: the whole environment under mocks (environments/example.yaml)', () => {
  let config: StackConfig;
  let recorded: Recorded;
  let outputs: { gatewayUrl: string; publishUrl: string; dataset: string; topics: string[] };
  const byType = (type: string) => ofType(recorded, type);
  const one = (type: string, pred: (d: Declared) => boolean) => {
    const found = byType(type).filter(pred);
    assert.equal(found.length, 1, `exactly one ${type} matching`);
    return found[0]!;
  };
  const gatewayService = () => one(T.run, (d) => d.inputs['name'] === 'gateway');

  // Secret values, planted where a careless program could pick them up: they must appear nowhere.
  const SENTINEL = 'sentinel-secret-value-7f3a9c';
  let secretsDir: string;

  before(async () => {
    config = loadStackConfig({
      project: PROJECT,
      region: 'europe-west1',
      settingsFile: 'environments/example.yaml',
    });
    secretsDir = mkdtempSync(join(tmpdir(), 'eventbus-infra-secrets-'));
    const planted: string[] = [];
    for (const s of config.plan.secrets) {
      writeFileSync(join(secretsDir, s), SENTINEL);
      if (process.env[s] === undefined) {
        process.env[s] = SENTINEL;
        planted.push(s);
      }
    }
    const previousDir = process.env['EVENTBUS_SECRETS_DIR'];
    process.env['EVENTBUS_SECRETS_DIR'] = secretsDir;
    try {
      recorded = await declare(async () => {
        const env = declareEnvironment(config, BUNDLES);
        outputs = {
          gatewayUrl: await resolveOutput(env.gatewayUrl),
          publishUrl: env.publishUrl,
          dataset: await resolveOutput(env.dataset),
          topics: await resolveOutput(env.topics),
        };
      });
    } finally {
      for (const s of planted) delete process.env[s];
      if (previousDir === undefined) delete process.env['EVENTBUS_SECRETS_DIR'];
      else process.env['EVENTBUS_SECRETS_DIR'] = previousDir;
    }
  });
  after(() => rmSync(secretsDir, { recursive: true, force: true }));

  it('declares resources in the counts the plan implies', () => {
    const { plan } = config;
    // Instance-billed functions are Cloud Run services (cost.billing, infra/functions.ts); the
    // example sets none, so all three are Cloud Functions, the design.
    const served = plan.functions.filter((f) => f.billing === 'instance').length;
    assert.equal(served, 0, 'the example runs store and forward as Cloud Functions');
    const counts: [string, number][] = [
      // And what the workloads call (the access table's API rows: the Telemetry API, …), each once.
      [
        T.api,
        new Set([
          ...REQUIRED_APIS,
          ...COLUMN_SECURITY_APIS,
          ...STUDIO_APIS,
          ...calledApis(plan, config.settings),
        ]).size,
      ],
      [T.topic, plan.topics.length],
      [T.subscription, plan.subscriptions.length],
      [T.function, plan.functions.length - served],
      // The gateway, the studio and the instance-billed functions.
      [T.run, 2 + served],
      [T.account, 7],
      // And the settings secret, and the gateway's session salt (the example lists browser origins).
      [T.secret, plan.secrets.length + 2],
      // The settings' one version (the salt's only with a value from the stack's config, which
      // this config has not); the planned secrets get theirs out of band.
      [T.secretVersion, 1],
      // The events dataset and the ops dataset (sync runs and state).
      [T.dataset, 2],
      [T.table, plan.tables.length + plan.views.length + plan.ops.tables.length],
      // The sources bucket, and one per plan bucket (the registry).
      [T.bucket, 1 + plan.buckets.length],
      // Five bundles, and store's and forward's as Cloud Run services.
      [T.object, 7],
      ['gcp:cloudscheduler/job:Job', 1],
      // One per dead-letter backlog, one per function's errors, and the API sunset's.
      [T.alert, plan.subscriptions.filter((s) => s.kind === 'backlog').length + plan.functions.length + 1],
    ];
    for (const [type, n] of counts) assert.equal(byType(type).length, n, type);
    assert.equal(plan.destinations.length, 4, 'the example has four destinations');
  });

  it('points every push subscription at its function, signed as the push account', () => {
    const subs = byType(T.subscription);
    for (const p of config.plan.subscriptions.filter((s) => s.push)) {
      const s = subs.find((d) => d.inputs['name'] === p.name);
      assert.ok(s, p.name);
      const service = config.plan.functions.find((f) => f.name === p.push!.function)!.service;
      assert.equal(s.inputs['pushConfig'].pushEndpoint, uri(service), p.name);
      assert.equal(s.inputs['pushConfig'].oidcToken.serviceAccountEmail, sa('push'), p.name);
    }
  });

  it('lets only the push account invoke each function', () => {
    // The studio's one invoker is IAP's service agent (test/infra/studio.test.ts).
    const invokers = byType(T.runMember).filter((m) => m.inputs['name'] !== 'studio');
    // A Cloud Function's service by its full name, a Cloud Run service's by its own.
    assert.deepEqual(
      invokers.map((m) => String(m.inputs['name']).split('/').pop()).sort(),
      config.plan.functions.map((f) => f.service).sort(),
    );
    for (const m of invokers) {
      assert.equal(m.inputs['role'], 'roles/run.invoker');
      assert.equal(m.inputs['member'], `serviceAccount:${sa('push')}`);
    }
  });

  it('deploys each request-billed function as gen2 nodejs24 http, sized from settings, built by the build account', () => {
    for (const f of config.plan.functions.filter((x) => x.billing === 'request')) {
      const fn = one(T.function, (d) => d.inputs['name'] === f.service);
      const { buildConfig, serviceConfig } = fn.inputs;
      assert.equal(buildConfig.runtime, 'nodejs24');
      assert.equal(buildConfig.entryPoint, f.entryPoint);
      assert.equal(buildConfig.serviceAccount, `projects/${PROJECT}/serviceAccounts/${sa('build')}`);
      assert.equal(buildConfig.source.storageSource.object, BUNDLES[f.name]!.object);
      assert.equal(buildConfig.source.storageSource.bucket, `${PROJECT}-eventbus-sources`);
      assert.equal(serviceConfig.serviceAccountEmail, sa(f.name));
      assert.equal(serviceConfig.availableMemory, f.sizing.memory);
      assert.equal(serviceConfig.availableCpu, String(f.sizing.cpu));
      assert.equal(serviceConfig.maxInstanceRequestConcurrency, f.sizing.concurrency);
      assert.equal(serviceConfig.minInstanceCount, f.sizing.min_instances);
      assert.equal(serviceConfig.maxInstanceCount, f.sizing.max_instances);
    }
    // store is a Cloud Function in the example, sized from its settings.
    const store = one(T.function, (d) => d.inputs['name'] === 'store-function').inputs['serviceConfig'];
    assert.equal(store.minInstanceCount, 0, 'functions.store.min_instances');
    assert.equal(store.maxInstanceCount, 50, 'functions.store.max_instances');
    assert.equal(store.serviceAccountEmail, sa('store'));
  });

  it('gives every workload its settings as a mounted file (no 32 KiB variable) and the project, and never an emulator host', () => {
    const services = byType(T.run);
    const envs: Record<string, string>[] = [
      ...byType(T.function).map((f) => f.inputs['serviceConfig'].environmentVariables),
      ...services.map((r) =>
        Object.fromEntries(
          (r.inputs['template'].containers[0].envs as { name: string; value: string }[]).map((e) => [
            e.name,
            e.value,
          ]),
        ),
      ),
    ];
    assert.equal(envs.length, config.plan.functions.length + 2);
    for (const env of envs) {
      assert.equal(env['EVENTBUS_SETTINGS_FILE'], `${SETTINGS_MOUNT}/${SETTINGS_FILE}`);
      assert.equal(env['EVENTBUS_SETTINGS'], undefined);
      assert.equal(env['GOOGLE_CLOUD_PROJECT'], PROJECT);
      assert.equal(env['NODE_ENV'], 'production');
      for (const v of [...EMULATOR_VARIABLES, 'EVENTBUS_SECRETS_DIR', 'METADATA_SERVER_DETECTION'])
        assert.equal(env[v], undefined, v);
    }
    // The file is the settings secret's one version, holding the settings as JSON.
    const [version, ...more] = byType(T.secretVersion);
    assert.equal(more.length, 0);
    // The provider marks secretData secret: the mocks hand it over wrapped, with its value.
    const data = version?.inputs['secretData'];
    assert.deepEqual(JSON.parse(typeof data === 'string' ? data : data?.value), config.settings);
    const item = { version: '1', path: SETTINGS_FILE };
    for (const f of byType(T.function))
      assert.deepEqual(f.inputs['serviceConfig'].secretVolumes, [
        { mountPath: SETTINGS_MOUNT, projectId: PROJECT, secret: SETTINGS_SECRET, versions: [item] },
      ]);
    for (const r of services) {
      assert.deepEqual(r.inputs['template'].volumes, [
        { name: 'settings', secret: { secret: SETTINGS_SECRET, items: [item] } },
      ]);
      assert.deepEqual(r.inputs['template'].containers[0].volumeMounts, [
        { name: 'settings', mountPath: SETTINGS_MOUNT },
      ]);
    }
  });

  it('runs the gateway publicly on Cloud Run from its archive, with no container build', () => {
    const gateway = gatewayService();
    const container = gateway.inputs['template'].containers[0];
    assert.equal(container.image, 'scratch');
    assert.match(container.baseImageUri, /serverless-runtimes\/google-24-full\/runtimes\/nodejs24$/);
    assert.deepEqual([...container.commands, ...container.args], ['node', 'main.js']);
    assert.equal(container.sourceCode.cloudStorageSource.object, BUNDLES['gateway']!.object);
    assert.equal(gateway.inputs['template'].serviceAccount, sa('gateway'));
    const env = Object.fromEntries(
      container.envs.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    assert.equal(env['EVENTBUS_TOKEN_STORE'], 'secret:eventbus-tokens');
    assert.equal(env['HOST'], '0.0.0.0');
    // Public through Cloud Run's invoker switch: Domain Restricted Sharing refuses allUsers.
    assert.equal(gateway.inputs['invokerIamDisabled'], true);
    // No CPU between requests (tokens are re-read on demand): its minimum instance idles cheaply.
    assert.equal(container.resources.cpuIdle, true);
    assert.equal(gateway.inputs['template'].scaling.minInstanceCount, 1, 'production: the example keeps one');
    const everything = JSON.stringify(recorded.resources.map((r) => r.inputs));
    assert.doesNotMatch(everything, /allUsers|allAuthenticatedUsers/);
  });

  it('starts the functions’ builds only after the build account holds its roles', () => {
    const grants = byType(T.projectMember).filter(
      (m) => m.inputs['member'] === `serviceAccount:${sa('build')}`,
    );
    assert.deepEqual(grants.map((g) => g.inputs['role']).sort(), [...BUILD_ROLES].sort());
    for (const fn of byType(T.function)) {
      const deps = recorded.dependsOn.get(fn.name) ?? [];
      for (const g of grants) assert.ok(deps.includes(g.name), `${fn.name} waits for ${g.name}`);
    }
  });

  it('ticks the scheduler every minute on the ticks topic, and lets it write scheduler locks, replays, erasure requests and the erased list only', () => {
    const job = one('gcp:cloudscheduler/job:Job', () => true);
    assert.equal(job.inputs['schedule'], '* * * * *');
    assert.equal(job.inputs['pubsubTarget'].topicName, `projects/${PROJECT}/topics/ticks`);
    assert.deepEqual(job.inputs['pubsubTarget'].attributes, { type: 'tick' });
    const writes = byType('gcp:storage/bucketIAMMember:BucketIAMMember')
      .filter(
        (m) =>
          m.inputs['member'] === `serviceAccount:${sa('schedule')}` &&
          m.inputs['role'] !== 'roles/storage.objectViewer',
      )
      .map(
        (m) =>
          `${m.inputs['role']} ${/objects\/([^"]+)"/.exec(m.inputs['condition']?.expression ?? '')?.[1]}`,
      );
    assert.deepEqual(writes.sort(), [
      'roles/storage.objectUser erasures/',
      'roles/storage.objectUser locks/',
      'roles/storage.objectUser privacy/',
      'roles/storage.objectUser replays/',
    ]);
  });

  it('lets Cloud Run’s service agent read the archives (the gateway’s build-less source deploy)', () => {
    const readers = byType('gcp:storage/bucketIAMMember:BucketIAMMember')
      .filter((m) => m.inputs['role'] === 'roles/storage.objectViewer' && !m.inputs['condition'])
      .map((m) => [m.inputs['role'], m.inputs['member']]);
    assert.deepEqual(readers.sort(), [
      ['roles/storage.objectViewer', `serviceAccount:${sa('build')}`],
      [
        'roles/storage.objectViewer',
        `serviceAccount:service-${PROJECT_NUMBER}@serverless-robot-prod.iam.gserviceaccount.com`,
      ],
    ]);
  });

  it('lets the gateway, store, forward and schedule read definitions, the gateway translators, schedule syncs, store (geo on) the country database, store and forward the erased list, by object prefix only (identity claims are in the claims database)', () => {
    const grants = byType('gcp:storage/bucketIAMMember:BucketIAMMember')
      .filter((m) => m.inputs['condition'] && m.inputs['role'] === 'roles/storage.objectViewer')
      .map(
        (m) =>
          `${String(m.inputs['member']).split(':')[1]?.split('@')[0]} ${m.inputs['condition'].expression}`,
      )
      .filter((g) => !g.includes('/Rule/'));
    const registry = 'projects/_/buckets/acme-outdoor-prod-acme-prod-registry/objects';
    assert.deepEqual(grants.sort(), [
      `eventbus-forward resource.name.startsWith("${registry}/EventDefinition/")`,
      `eventbus-forward resource.name.startsWith("${registry}/privacy/")`,
      `eventbus-gateway resource.name.startsWith("${registry}/EventDefinition/")`,
      `eventbus-gateway resource.name.startsWith("${registry}/Translator/")`,
      // Alerts are read every minute.
      `eventbus-schedule resource.name.startsWith("${registry}/Alert/")`,
      `eventbus-schedule resource.name.startsWith("${registry}/EventDefinition/")`,
      `eventbus-schedule resource.name.startsWith("${registry}/Sync/")`,
      `eventbus-store resource.name.startsWith("${registry}/EventDefinition/")`,
      `eventbus-store resource.name.startsWith("${registry}/geo/")`,
      `eventbus-store resource.name.startsWith("${registry}/privacy/")`,
    ]);
  });

  it('tells the gateway its own deterministic URL as the ID-token audience, and exports it', () => {
    const container = gatewayService().inputs['template'].containers[0];
    const env = Object.fromEntries(
      container.envs.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    // https://SERVICE-PROJECT_NUMBER.REGION.run.app, the number from getProject (no cycle on
    // the service's own uri output).
    const url = `https://gateway-${PROJECT_NUMBER}.europe-west1.run.app`;
    assert.equal(env['EVENTBUS_GATEWAY_AUDIENCE'], url);
    assert.equal(outputs.gatewayUrl, url);
    assert.ok(
      recorded.calls.some(
        (c) => c.token === 'gcp:organizations/getProject:getProject' && c.inputs['projectId'] === PROJECT,
      ),
    );
  });

  it('grants publish on topics only: gateway and producers on events topics, store on each deliveries topic', () => {
    const publishers = byType(T.topicMember).filter(
      (m) => !String(m.inputs['member']).includes('gcp-sa-pubsub'),
    );
    const grants = (member: string) =>
      publishers
        .filter((m) => m.inputs['member'] === member)
        .map((m) => m.inputs['topic'])
        .sort();
    const eventTopics = config.plan.topics
      .filter((t) => t.producers)
      .map((t) => t.name)
      .sort();
    assert.deepEqual(grants(`serviceAccount:${sa('gateway')}`), eventTopics);
    assert.deepEqual(
      grants(`serviceAccount:${sa('store')}`),
      config.plan.destinations.map((d) => `deliveries-${d.id}`).sort(),
    );
    for (const p of config.settings.producers!.principals!) assert.deepEqual(grants(p), eventTopics);
    assert.deepEqual(grants(`serviceAccount:${sa('forward')}`), []);
    assert.ok(publishers.every((m) => m.inputs['role'] === 'roles/pubsub.publisher'));
  });

  it('declares a secret per planned name with no value, readable only by the workload that needs it', () => {
    assert.deepEqual(
      byType(T.secret)
        .map((s) => s.inputs['secretId'])
        .sort(),
      [...config.plan.secrets, SETTINGS_SECRET, SESSION_SALT.secretId].sort(),
    );
    // Every workload reads the settings secret (settings hold no secret value), nothing more.
    assert.deepEqual(
      byType(T.secretMember)
        .filter((m) => m.inputs['secretId'] === SETTINGS_SECRET)
        .map((m) => `${m.inputs['member']} ${m.inputs['role']}`)
        .sort(),
      ['forward', 'gateway', 'schedule', 'store', 'studio'].map(
        (w) => `serviceAccount:${sa(w)} roles/secretmanager.secretAccessor`,
      ),
    );
    const access = byType(T.secretMember)
      .filter((m) => m.inputs['secretId'] !== SETTINGS_SECRET)
      .map((m) => `${m.inputs['member']} ${m.inputs['secretId']} ${m.inputs['role']}`);
    const forward = config.plan.functions.find((f) => f.name === 'forward')!.secrets;
    const read = 'roles/secretmanager.secretAccessor';
    assert.deepEqual(
      access.sort(),
      [
        ...forward.map((s) => `serviceAccount:${sa('forward')} ${s} ${read}`),
        `serviceAccount:${sa('gateway')} eventbus-tokens ${read}`,
        // The example lists browser origins: the gateway alone reads the cookieless session salt.
        `serviceAccount:${sa('gateway')} ${SESSION_SALT.secretId} ${read}`,
        // The studio's creator issues translate:<name> tokens: it reads, adds versions and destroys
        // the superseded ones (Version Adder cannot destroy).
        `serviceAccount:${sa('studio')} eventbus-tokens ${read}`,
        `serviceAccount:${sa('studio')} eventbus-tokens roles/secretmanager.secretVersionManager`,
      ].sort(),
    );
  });

  it('puts no secret value anywhere in the declared resources', () => {
    const text = JSON.stringify(recorded.resources);
    assert.ok(!text.includes(SENTINEL), 'a planted secret value leaked into a resource');
    assert.ok(text.includes('meta-capi-token'), 'secret names are there (sanity check of the scan)');
  });

  it('grants no basic role anywhere', () => {
    const roles = recorded.resources.flatMap((r) =>
      typeof r.inputs['role'] === 'string' ? [r.inputs['role']] : [],
    );
    assert.ok(roles.length > 20, 'the scan sees the bindings');
    for (const role of roles) assert.doesNotMatch(role, /^roles\/(owner|editor|viewer)$/);
    const projectRoles = byType(T.projectMember).map((m) => `${m.inputs['member']} ${m.inputs['role']}`);
    assert.deepEqual(
      projectRoles.sort(),
      [
        ...BUILD_ROLES.map((r) => `serviceAccount:${sa('build')} ${r}`),
        ...config.settings.analysts!.map((a) => `${a} roles/bigquery.jobUser`),
        `serviceAccount:${sa('schedule')} roles/bigquery.jobUser`,
        // No forward: it runs no query (whether a delivery happened is the send-once claim's word).
        // The late-copy check is a query (adapters/stored-check.ts).
        `serviceAccount:${sa('store')} roles/bigquery.jobUser`,
        `serviceAccount:${sa('studio')} roles/bigquery.jobUser`,
        // Send-once claims: project-level, conditioned on the claims database (infra/claims.ts).
        `serviceAccount:${sa('store')} roles/datastore.user`,
        `serviceAccount:${sa('forward')} roles/datastore.user`,
        // Translators' signing secrets: conditioned on their name prefix (infra/secrets.ts).
        `serviceAccount:${sa('gateway')} roles/secretmanager.secretAccessor`,
        // Spans to Cloud Trace (docs/observability.md): the workloads that trace.
        ...['gateway', 'store', 'forward'].map((w) => `serviceAccount:${sa(w)} roles/cloudtrace.agent`),
        // The debugger's waterfall reads traces (adapters/trace-reader.ts).
        `serviceAccount:${sa('studio')} roles/cloudtrace.user`,
        // Delivery metrics to Cloud Monitoring (adapters/metrics.ts): the delivery functions.
        `serviceAccount:${sa('forward')} roles/monitoring.metricWriter`,
      ].sort(),
      'project-wide roles: the builder roles, jobUser for analysts and the workloads that query, datastore.user for claims, the translator secrets',
    );
  });

  it('declares tables whose schema, partitioning and clustering equal plan.tables', () => {
    const tables = byType(T.table).filter(
      (t) => !t.inputs['view'] && t.inputs['datasetId'] !== 'eventbus_ops',
    );
    assert.equal(tables.length, config.plan.tables.length);
    for (const t of config.plan.tables) {
      const declared = one(T.table, (d) => d.inputs['tableId'] === t.name && !d.inputs['view']);
      const untagged = JSON.stringify(JSON.parse(declared.inputs['schema']), (k, v) =>
        k === 'policyTags' ? undefined : v,
      );
      assert.deepEqual(JSON.parse(untagged), JSON.parse(JSON.stringify(t.columns)), t.name);
      assert.equal(declared.inputs['timePartitioning']?.field, t.timePartitioning?.field, t.name);
      assert.equal(
        declared.inputs['timePartitioning']?.expirationMs,
        t.timePartitioning?.expirationMs ? Number(t.timePartitioning.expirationMs) : undefined,
      );
      assert.deepEqual(declared.inputs['clusterings'], t.clustering ? [...t.clustering] : undefined, t.name);
      assert.equal(declared.inputs['deletionProtection'], true, 'warehouse.deletion_protection');
    }
    for (const v of config.plan.views) {
      const declared = one(T.table, (d) => d.inputs['tableId'] === v.name);
      assert.equal(declared.inputs['view'].query, v.query);
      assert.equal(declared.inputs['view'].useLegacySql, false);
    }
    const [dataset] = byType(T.dataset);
    assert.equal(dataset!.inputs['location'], 'EU');
    assert.equal(outputs.dataset, 'events');
  });

  it('column-level security: the pii tag on exactly the PII columns, a SHA-256 masking rule on it', () => {
    const tag = mockPolicyTag(PROJECT, 'eu');
    const [taxonomy] = byType('gcp:datacatalog/taxonomy:Taxonomy');
    assert.deepEqual(taxonomy?.inputs['activatedPolicyTypes'], ['FINE_GRAINED_ACCESS_CONTROL']);
    assert.equal(taxonomy?.inputs['region'], 'eu', 'where the dataset is (EU)');
    const [rule, ...more] = byType('gcp:bigquerydatapolicy/dataPolicy:DataPolicy');
    assert.equal(more.length, 0);
    assert.equal(rule?.inputs['policyTag'], tag);
    assert.equal(rule?.inputs['dataPolicyType'], 'DATA_MASKING_POLICY');
    assert.deepEqual(rule?.inputs['dataMaskingPolicy'], { predefinedExpression: 'SHA256' });
    const tagged = (
      fields: { name: string; fields?: unknown[]; policyTags?: { names: string[] } }[],
      prefix = '',
    ): string[] =>
      fields.flatMap((f) => {
        if (f.fields) return tagged(f.fields as typeof fields, `${prefix}${f.name}.`);
        if (f.policyTags) assert.deepEqual(f.policyTags.names, [tag]);
        return f.policyTags ? [`${prefix}${f.name}`] : [];
      });
    for (const t of config.plan.tables) {
      const declared = one(T.table, (d) => d.inputs['tableId'] === t.name && !d.inputs['view']);
      assert.deepEqual(
        tagged(JSON.parse(declared.inputs['schema'])),
        [...(PII_COLUMNS[t.name] ?? [])],
        t.name,
      );
    }
    assert.ok(byType(T.api).some((a) => a.inputs['service'] === 'bigquerydatapolicy.googleapis.com'));
  });

  it('gives analysts dataViewer on the dataset, and each function dataEditor on the tables it writes only', () => {
    const members = byType(T.datasetMember).map(
      (m) => `${m.inputs['member']} ${m.inputs['role']} ${m.inputs['datasetId']}`,
    );
    assert.deepEqual(members.sort(), [
      'group:analytics@acme.example roles/bigquery.dataViewer events',
      // The scheduler reads the events its syncs and scheduled rules query, and keeps sync state.
      // Slice replay tables carry the events table's policy tags (column security is on).
      `serviceAccount:${sa('schedule')} projects/acme-outdoor-prod/roles/eventbus.acme_prod.policyTaggedTables eventbus_ops`,
      `serviceAccount:${sa('schedule')} roles/bigquery.dataEditor eventbus_ops`,
      `serviceAccount:${sa('schedule')} roles/bigquery.dataViewer events`,
      // The studio creates views of the events.
      `serviceAccount:${sa('studio')} roles/bigquery.dataEditor events`,
      // Its live events page reads the gateway's refusals.
      `serviceAccount:${sa('studio')} roles/bigquery.dataViewer eventbus_ops`,
    ]);
    const writes = byType(T.tableMember).map(
      (m) => `${m.inputs['member']} ${m.inputs['role']} ${m.inputs['datasetId']}.${m.inputs['tableId']}`,
    );
    assert.deepEqual(
      writes.sort(),
      [
        `serviceAccount:${sa('store')} roles/bigquery.dataEditor events.events`,
        `serviceAccount:${sa('store')} roles/bigquery.dataEditor events.invalid_events`,
        `serviceAccount:${sa('store')} roles/bigquery.dataEditor events.deliveries`,
        // A hook that failed for good is recorded, and its push acknowledged.
        `serviceAccount:${sa('store')} roles/bigquery.dataEditor events.hook_failures`,
        `serviceAccount:${sa('forward')} roles/bigquery.dataEditor events.deliveries`,
        // The `skipped` rows of slice replays the console starts (its reads: the dataset's viewer).
        `serviceAccount:${sa('schedule')} roles/bigquery.dataEditor events.deliveries`,
        // The erasure job's DELETEs (docs/privacy.md#erasure).
        ...['events', 'invalid_events', 'hook_failures'].map(
          (t) => `serviceAccount:${sa('schedule')} roles/bigquery.dataEditor events.${t}`,
        ),
        // Live events: the gateway writes the requests it refused.
        `serviceAccount:${sa('gateway')} roles/bigquery.dataEditor eventbus_ops.gateway_refusals`,
        // Access requests: the studio records who exported a person (studio/privacy-api.ts).
        `serviceAccount:${sa('studio')} roles/bigquery.dataEditor eventbus_ops.exports`,
        // What the platforms counted (docs/delivery.md#counted-by-the-platform).
        `serviceAccount:${sa('schedule')} roles/bigquery.dataEditor events.platform_counts`,
        // The incremental models it keeps (docs/sessions.md).
        ...['sessions', 'identity_map', 'identity_merges', 'identity_erasures', 'model_watermarks'].map(
          (t) => `serviceAccount:${sa('schedule')} roles/bigquery.dataEditor events.${t}`,
        ),
      ].sort(),
    );
  });

  it('counts the gateway’s refused requests in a log-based metric, by status and reason', () => {
    const metrics = byType('gcp:logging/metric:Metric');
    // (and the API sunset's, below)
    assert.equal(metrics.length, 2);
    const metric = metrics.find((m) => m.inputs['name'] === 'eventbus/auth_refusals');
    assert.equal(metric?.inputs['name'], 'eventbus/auth_refusals');
    assert.match(metric?.inputs['filter'], /service_name = "gateway"/);
    assert.match(metric?.inputs['filter'], /jsonPayload\.refusal\.status >= 401/);
    assert.deepEqual(Object.keys(metric?.inputs['labelExtractors']).sort(), ['reason', 'status']);
  });

  it('alerts on every dead-letter backlog and on each function’s errors', () => {
    const filters = byType(T.alert).map((a) => a.inputs['conditions'][0].conditionThreshold.filter as string);
    for (const s of config.plan.subscriptions.filter((x) => x.kind === 'backlog')) {
      assert.ok(
        filters.some((f) => f.includes('num_undelivered_messages') && f.includes(`"${s.name}"`)),
        s.name,
      );
    }
    for (const f of config.plan.functions) {
      assert.ok(
        filters.some((x) => x.includes('5xx') && x.includes(`service_name = "${f.service}"`)),
        f.name,
      );
    }
  });

  it('alerts when the scheduler warns that a platform API version nears its sunset (#62)', () => {
    const metric = byType('gcp:logging/metric:Metric').find(
      (m) => m.inputs['name'] === 'eventbus/api_sunset',
    );
    assert.ok(metric, 'the log-based metric');
    const schedule = config.plan.functions.find((f) => f.name === 'schedule');
    assert.match(String(metric.inputs['filter']), new RegExp(`service_name = "${schedule?.service}"`));
    assert.match(String(metric.inputs['filter']), /jsonPayload\.api_sunset\.version:\*/);
    const policy = byType(T.alert).find((a) =>
      /API version nears its sunset/.test(String(a.inputs['displayName'])),
    );
    assert.ok(policy, 'the alert policy');
    assert.match(
      String(policy.inputs['conditions'][0].conditionThreshold.filter),
      /logging\.googleapis\.com\/user\/eventbus\/api_sunset/,
    );
  });

  it('prices every workload it deploys: each Cloud Run service and function is a line of the bill', () => {
    const declared = [...byType(T.run), ...byType(T.function)].map((d) => String(d.inputs['name'])).sort();
    const shape = trafficShape(config.settings, config.plan.destinations.length);
    assert.deepEqual(
      workloadsOf(config.plan, shape)
        .map((w) => w.service)
        .sort(),
      declared,
    );
    const items = monthlyBill(config.plan, 'idle', shape).items.map((i) => i.item);
    for (const name of declared)
      assert.ok(
        items.some((i) => i.startsWith(`${name} (`)),
        name,
      );
  });

  it('prices each alert condition it declares, no more and no fewer', () => {
    const declared = byType(T.alert).reduce((n, a) => n + (a.inputs['conditions'] as unknown[]).length, 0);
    const shape = trafficShape(config.settings, config.plan.destinations.length);
    const line = monthlyBill(config.plan, 'idle', shape).items.find(
      (i) => i.item === 'Cloud Monitoring alerts',
    );
    assert.match(line?.detail ?? '', new RegExp(`^${declared} alert conditions`));
  });

  it('exports the gateway URL, the native publish URL, the dataset and the topics', () => {
    assert.equal(
      outputs.publishUrl,
      `https://pubsub.googleapis.com/v1/projects/${PROJECT}/topics/events:publish`,
    );
    assert.deepEqual(
      outputs.topics,
      config.plan.topics.map((t) => t.name),
    );
  });
});
