/**
 * docs/deploy.md's deployer-role table (scripts/docs-deployer.ts) against what the program
 * declares for every settings variant (infra/variants.ts): the committed table is what
 * `npm run docs` writes, it has a row with roles for every declared type (the load balancer's
 * and the domain mapping's included) and Service Account User on every account a declared
 * resource acts as, and the generation refuses a declared type it has no roles for.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../infra/config.ts';
import type { DeclaredVariant } from '../../infra/variants.ts';
import { actsAs, deployerTable, SERVICE_ACCOUNT_USER } from '../../scripts/docs-deployer.ts';
import { fill } from '../../scripts/docs-generate.ts';
import { withVariants } from './support.ts';

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

describe('infra: the deployer-role table (docs/deploy.md) covers every settings variant', () => {
  const declared = withVariants();

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
