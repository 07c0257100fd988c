/**
 * What the program declares for every settings variant the repository carries (infra/variants.ts),
 * declared once for both checks here (declaring them all costs about 9 s of CPU):
 *
 * The deployer-role table: docs/deploy.md's table (scripts/docs-deployer.ts) is what `npm run docs`
 * writes, it has a row with roles for every declared type (the load balancer's and the domain
 * mapping's included) and Service Account User on every account a declared resource acts as, and
 * the generation refuses a declared type it has no roles for.
 *
 * Enabled APIs derived, not listed (issue #76): every Google API host the workloads' code calls
 * has a row in the access table (core/access/needs.ts, apiCalls), and every row's service is one
 * the program enables (infra/apis.ts) for the settings that make the call. A host the code calls
 * that no row names, or a row whose service stays off, fails here: in the cloud it is a 403
 * SERVICE_DISABLED.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { WRITE_API_ONLY } from '../../adapters/bigquery-writer.ts';
import { accessNeeds, apiCalls, serviceOfHost } from '../../core/access/needs.ts';
import { REPO_ROOT } from '../../infra/config.ts';
import type { DeclaredVariant } from '../../infra/variants.ts';
import { actsAs, deployerTable, SERVICE_ACCOUNT_USER } from '../../scripts/docs-deployer.ts';
import { fill } from '../../scripts/docs-markers.ts';
import { ofType, withVariants } from './support.ts';

const SLEEP = 'time:index/sleep:Sleep';
const DOMAIN_TYPES = [
  'gcp:compute/globalAddress:GlobalAddress',
  'gcp:compute/regionNetworkEndpointGroup:RegionNetworkEndpointGroup',
  'gcp:compute/backendService:BackendService',
  'gcp:compute/uRLMap:URLMap',
  'gcp:compute/managedSslCertificate:ManagedSslCertificate',
  'gcp:compute/targetHttpsProxy:TargetHttpsProxy',
  'gcp:compute/globalForwardingRule:GlobalForwardingRule',
  'gcp:cloudrun/domainMapping:DomainMapping',
];

interface DeployerRow {
  readonly roles: readonly string[];
  /** Accounts the row's Service Account User is needed on (`eventbus-push`, …). */
  readonly actAs: readonly string[];
}

const deployDoc = () => readFileSync(resolve(REPO_ROOT, 'docs/deploy.md'), 'utf8');

/** The committed table, read as a deployer would: resource type → the roles that create it. */
function committedRows(): Map<string, DeployerRow> {
  const lines = deployDoc().slice(deployDoc().indexOf('### Deployer roles')).split('\n');
  const first = lines.findIndex((l) => l.startsWith('| Declares |'));
  assert.ok(first >= 0, 'docs/deploy.md has the deployer-role table');
  const rows = new Map<string, DeployerRow>();
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const [type = '', needs = ''] = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const on = needs.split(`\`${SERVICE_ACCOUNT_USER}\` on`)[1] ?? '';
    rows.set(type.replaceAll('`', ''), {
      roles: [...needs.matchAll(/`(roles\/[a-zA-Z.]+)`/g)].map((m) => m[1] as string),
      actAs: [...on.matchAll(/`(eventbus-[a-z-]+)`/g)].map((m) => m[1] as string),
    });
  }
  return rows;
}

const resourceTypes = (v: DeclaredVariant) =>
  new Set(
    v.recorded.resources
      .map((r) => r.type)
      .filter((t) => !t.startsWith('eventbus:') && t !== 'pulumi:pulumi:Stack'),
  );

/** The code the deployed workloads run. */
const RUNTIME_DIRS = ['adapters', 'core', 'functions', 'gateway', 'studio'];
/** The host each Google client library the runtime imports calls. */
const LIBRARY_HOSTS: Readonly<Record<string, string | null>> = {
  '@google-cloud/pubsub': 'pubsub.googleapis.com',
  '@google-cloud/bigquery': 'bigquery.googleapis.com',
  // The Storage Write API (adapters/bigquery-write-api.ts).
  '@google-cloud/bigquery-storage': 'bigquerystorage.googleapis.com',
  '@google-cloud/storage': 'storage.googleapis.com',
  '@google-cloud/firestore': 'firestore.googleapis.com',
  '@google-cloud/secret-manager': 'secretmanager.googleapis.com',
  // Serves the function; calls nothing.
  '@google-cloud/functions-framework': null,
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    if (statSync(path).isDirectory()) return f === 'node_modules' || f === 'web' ? [] : sources(path);
    return f.endsWith('.ts') ? [path] : [];
  });
}

/** host → a file that calls it, from the runtime code's URLs and client-library imports. */
/**
 * Google hosts that are no API of a project: Google's OAuth 2.0 token endpoint, which a refresh
 * token is exchanged at (adapters/google-oauth.ts, as google-auth-library does), needs no API
 * enabled and no IAM grant.
 */
const NOT_AN_API: ReadonlySet<string> = new Set(['oauth2.googleapis.com']);

function hostsInCode(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of RUNTIME_DIRS.flatMap((d) => sources(join(REPO_ROOT, d)))) {
    const text = readFileSync(file, 'utf8');
    const at = relative(REPO_ROOT, file);
    // An OAuth scope (www.googleapis.com/auth/…) names a permission, not a host called.
    for (const m of text.matchAll(/https:\/\/([a-z0-9.-]+\.googleapis\.com)(\/auth\/)?/g))
      if (!m[2] && !NOT_AN_API.has(m[1] as string)) found.set(m[1] as string, at);
    for (const m of text.matchAll(/['"](@google-cloud\/[a-z-]+)['"]/g)) {
      const library = m[1] as string;
      assert.ok(library in LIBRARY_HOSTS, `${at} imports ${library}: say which host it calls`);
      const host = LIBRARY_HOSTS[library];
      if (host) found.set(host, at);
    }
  }
  return found;
}

const enabledIn = (v: DeclaredVariant) =>
  new Set(ofType(v.recorded, 'gcp:projects/service:Service').map((s) => String(s.inputs['service'])));

describe('serviceOfHost', () => {
  it('names the service of global and regional endpoints, and nothing for other hosts', () => {
    assert.equal(serviceOfHost('analyticsadmin.googleapis.com'), 'analyticsadmin.googleapis.com');
    assert.equal(serviceOfHost('us-east1-pubsub.googleapis.com'), 'pubsub.googleapis.com');
    assert.equal(serviceOfHost('pubsub.europe-west1.rep.googleapis.com'), 'pubsub.googleapis.com');
    assert.equal(serviceOfHost('127.0.0.1:8099'), undefined);
    assert.equal(serviceOfHost('graph.facebook.com'), undefined);
  });
});

describe('infra: every settings variant, declared', () => {
  const declared = withVariants();

  describe('the deployer-role table (docs/deploy.md) covers every variant', () => {
    it('declares the load balancer’s and the domain mapping’s types in some variant', () => {
      const types = new Set(declared().flatMap((v) => [...resourceTypes(v)]));
      assert.deepEqual(
        DOMAIN_TYPES.filter((t) => !types.has(t)),
        [],
      );
    });

    it('is what `npm run docs` writes', () => {
      const text = deployDoc();
      const generated = fill(text, 'deployer-roles', deployerTable(declared()), 'docs/deploy.md');
      assert.ok(text === generated, 'docs/deploy.md’s deployer-role table is stale: run `npm run docs`');
    });

    it('has a row naming a role for every type a variant declares, and none for another', () => {
      const rows = committedRows();
      const gaps = declared().flatMap((v) =>
        [...resourceTypes(v)]
          .filter((t) => t !== SLEEP && (rows.get(t)?.roles.length ?? 0) === 0)
          .map((t) => `${v.file}: ${t}`),
      );
      assert.deepEqual(gaps, []);
      const types = new Set(declared().flatMap((v) => [...resourceTypes(v)]));
      assert.deepEqual(
        [...rows.keys()].filter((t) => !types.has(t)),
        [],
      );
    });

    it('names Service Account User on every account a declared resource acts as', () => {
      const rows = committedRows();
      const gaps = declared().flatMap((v) =>
        v.recorded.resources.flatMap((r) =>
          actsAs(r)
            .filter((a) => {
              const row = rows.get(r.type);
              return !row?.roles.includes(SERVICE_ACCOUNT_USER) || !row.actAs.includes(a);
            })
            .map((a) => `${v.file}: ${r.type} ${r.name} acts as ${a}`),
        ),
      );
      assert.deepEqual(gaps, []);
    });

    it('refuses to generate with a declared type it has no roles for', () => {
      const [first] = declared();
      assert.ok(first);
      const extra = { type: 'gcp:compute/sslPolicy:SSLPolicy', name: 'x', inputs: {} };
      const added = {
        ...first,
        recorded: { ...first.recorded, resources: [...first.recorded.resources, extra] },
      };
      assert.throws(
        () => deployerTable([added, ...declared().slice(1)]),
        /gcp:compute\/sslPolicy:SSLPolicy is declared but has no entry/,
      );
      // …and an entry for a type no variant declares any more.
      assert.throws(
        () => deployerTable(declared().filter((v) => !v.file.endsWith('/gateway-domain-mapping.yaml'))),
        /gcp:cloudrun\/domainMapping:DomainMapping has an entry in DEPLOYER_ROLES but no settings variant/,
      );
    });
  });

  describe('every Google API host the code calls is enabled for the settings that call it', () => {
    it('finds the hosts the runtime calls, Analytics Admin and Data Manager among them', () => {
      const hosts = [...hostsInCode().keys()].sort();
      for (const h of [
        'analyticsadmin.googleapis.com',
        'datamanager.googleapis.com',
        'pubsub.googleapis.com',
      ])
        assert.ok(hosts.includes(h), `${h} in ${hosts.join(', ')}`);
    });

    it('gives every host the code calls a row in the access table of some settings', () => {
      const rows = new Set(
        declared().flatMap((v) => apiCalls(v.config.plan, v.config.settings).map((c) => c.host)),
      );
      const missing = [...hostsInCode()].filter(([h]) => !rows.has(h)).map(([h, at]) => `${h} (${at})`);
      assert.deepEqual(missing, [], 'hosts called with no row in core/access/needs.ts apiCalls');
    });

    it('enables each row’s service for the settings that make the call', () => {
      const off = declared().flatMap((v) => {
        const enabled = enabledIn(v);
        return apiCalls(v.config.plan, v.config.settings)
          .filter((c) => !enabled.has(serviceOfHost(c.host) ?? ''))
          .map((c) => `${v.file}: ${c.who} calls ${c.host} (${c.feature}, ${c.code})`);
      });
      assert.deepEqual(off, []);
    });

    it('lists the Storage Write API for every workload writing a table only it may write', () => {
      // adapters/bigquery-writer.ts refuses these tables to insertAll: whoever writes one calls
      // bigquerystorage.googleapis.com (store, forward, forward-catalog, and schedule's ledger rows).
      for (const v of declared()) {
        const calls = apiCalls(v.config.plan, v.config.settings);
        const writers = new Set(
          accessNeeds(v.config.plan, v.config.settings)
            .filter(
              (n) =>
                !n.denied &&
                n.permission === 'bigquery.tables.updateData' &&
                [...WRITE_API_ONLY].some((t) => n.resource.endsWith(`/tables/${t}`)),
            )
            .map((n) => n.who),
        );
        assert.ok(writers.has('schedule'), `${v.file}: schedule writes ledger rows`);
        const missing = [...writers].filter(
          (who) => !calls.some((c) => c.who === who && c.host === 'bigquerystorage.googleapis.com'),
        );
        assert.deepEqual(missing, [], v.file);
      }
    });

    it('enables the Analytics Admin API with a GA4 user deletion, and only then', () => {
      for (const v of declared()) {
        const deletes = (v.config.settings.destinations ?? []).some((d) => d.user_deletion);
        assert.equal(enabledIn(v).has('analyticsadmin.googleapis.com'), deletes, v.file);
      }
      const ga4 = declared().find((v) => v.file.endsWith('/ga4-user-deletion.yaml'));
      assert.ok(ga4, 'a GA4 user-deletion variant');
      assert.deepEqual(
        apiCalls(ga4.config.plan, ga4.config.settings)
          .filter((c) => c.host === 'analyticsadmin.googleapis.com')
          .map((c) => c.who),
        ['schedule'],
      );
    });
  });
});
