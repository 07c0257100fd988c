/**
 * `gateway.domain` under mocks (infra/gateway-domain.ts): through the load balancer (the
 * default) or a Cloud Run domain mapping, the resources declared and the DNS record exported;
 * nothing of either without the setting; a mapping refused before anything is declared in a
 * region without mappings; the load balancer's line in the monthly bill.
 */
import assert from 'node:assert/strict';
import { monthlyBill, trafficShape } from '../../core/deploy/bill.ts';
import { plan } from '../../core/plan.ts';
import { checkSettings } from '../../core/settings.ts';
import type { StackConfig } from '../../infra/config.ts';
import { declareEnvironment, type EnvironmentOutputs } from '../../infra/environment.ts';
import { domainRefusal, MAPPING_REGIONS } from '../../infra/gateway-domain.ts';
import { BUNDLES, declare, LB_TYPES, ofType, type Recorded, resolveOutput } from './support.ts';

const PROJECT = 'shop-events-prod';
const DOMAIN = 'events.shop.example';
const T = LB_TYPES;
const LOAD_BALANCER_TYPES = [T.address, T.neg, T.backend, T.urlMap, T.certificate, T.proxy, T.rule];

function stackConfig(region: string, gateway?: Record<string, unknown>): StackConfig {
  const checked = checkSettings({ name: 'shop', project: PROJECT, region, ...(gateway ? { gateway } : {}) });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  const { settings } = checked;
  return { project: PROJECT, region, settingsFile: 'inline', settings, plan: plan(settings) };
}

interface Declared {
  recorded: Recorded;
  url: string | undefined;
  dns: string | undefined;
}

async function declared(config: StackConfig): Promise<Declared> {
  let env: EnvironmentOutputs | undefined;
  let dns: string | undefined;
  const recorded = await declare(async () => {
    env = declareEnvironment(config, BUNDLES);
    if (env.gatewayDnsRecord) dns = await resolveOutput(env.gatewayDnsRecord);
  });
  return { recorded, url: env?.gatewayDomainUrl, dns };
}

const one = (recorded: Recorded, type: string) => {
  const found = ofType(recorded, type);
  assert.equal(found.length, 1, `exactly one ${type}`);
  return found[0]!.inputs;
};
const apis = (recorded: Recorded) => ofType(recorded, T.api).map((d) => d.inputs['service']);

describe('infra: gateway.domain (a first-party domain for the gateway)', () => {
  it('declares nothing of a domain without the setting', async () => {
    const { recorded, url, dns } = await declared(stackConfig('europe-west1'));
    for (const type of [...LOAD_BALANCER_TYPES, T.mapping])
      assert.equal(ofType(recorded, type).length, 0, type);
    assert.ok(!apis(recorded).includes('compute.googleapis.com'));
    assert.equal(url, undefined);
    assert.equal(dns, undefined);
  });

  it('serves the domain through a global external load balancer by default, and exports its A record', async () => {
    const { recorded, url, dns } = await declared(stackConfig('europe-west3', { domain: DOMAIN }));
    for (const type of LOAD_BALANCER_TYPES) one(recorded, type);
    assert.equal(ofType(recorded, T.mapping).length, 0);
    const neg = one(recorded, T.neg);
    assert.equal(neg['networkEndpointType'], 'SERVERLESS');
    assert.equal(neg['region'], 'europe-west3');
    assert.deepEqual(neg['cloudRun'], { service: 'gateway' });
    assert.equal(one(recorded, T.backend)['loadBalancingScheme'], 'EXTERNAL_MANAGED');
    assert.deepEqual(one(recorded, T.certificate)['managed'], { domains: [DOMAIN] });
    const rule = one(recorded, T.rule);
    assert.equal(rule['loadBalancingScheme'], 'EXTERNAL_MANAGED');
    assert.equal(rule['portRange'], '443');
    assert.ok(apis(recorded).includes('compute.googleapis.com'), 'Compute Engine API enabled');
    assert.equal(url, `https://${DOMAIN}`);
    // The reserved address under mocks (infra/offline.ts).
    assert.equal(dns, `${DOMAIN} A 203.0.113.10`);
  });

  it('maps the domain with a Cloud Run domain mapping when asked, and exports its CNAME', async () => {
    const { recorded, url, dns } = await declared(
      stackConfig('europe-west1', { domain: DOMAIN, domain_via: 'mapping' }),
    );
    for (const type of LOAD_BALANCER_TYPES) assert.equal(ofType(recorded, type).length, 0, type);
    const mapping = one(recorded, T.mapping);
    assert.equal(mapping['name'], DOMAIN);
    assert.equal(mapping['location'], 'europe-west1');
    assert.equal(mapping['metadata']['namespace'], PROJECT);
    assert.equal(mapping['spec']['routeName'], 'gateway');
    assert.ok(!apis(recorded).includes('compute.googleapis.com'));
    assert.equal(url, `https://${DOMAIN}`);
    assert.equal(dns, `${DOMAIN} CNAME ghs.googlehosted.com.`);
  });

  it('refuses a mapping in a region without domain mappings before declaring anything', async () => {
    const config = stackConfig('europe-west3', { domain: DOMAIN, domain_via: 'mapping' });
    assert.match(domainRefusal(config.plan) ?? '', /not offered in europe-west3.*domain_via: load_balancer/);
    const recorded = await declare(() => {
      assert.throws(() => declareEnvironment(config, BUNDLES), /not offered in europe-west3/);
    });
    assert.deepEqual(
      recorded.resources.filter((r) => r.type.startsWith('gcp:')),
      [],
    );
    for (const region of MAPPING_REGIONS)
      assert.equal(
        domainRefusal(stackConfig(region, { domain: DOMAIN, domain_via: 'mapping' }).plan),
        undefined,
      );
  });

  it('accepts a subdomain only', () => {
    for (const domain of [
      'shop.example',
      'Events.shop.example',
      'events.shop.example.',
      'https://events.shop.example',
    ])
      assert.equal(
        checkSettings({ name: 'shop', project: PROJECT, region: 'europe-west1', gateway: { domain } }).ok,
        false,
        domain,
      );
    assert.equal(
      stackConfig('europe-west1', { domain: 'collect.shop.co.uk' }).plan.gateway.domain?.via,
      'load_balancer',
    );
  });

  it("bills the load balancer's forwarding rule all month, idle or not; a mapping costs nothing", () => {
    const lb = stackConfig('europe-west3', { domain: DOMAIN }).plan;
    const line = (p: typeof lb, scenario: 'idle' | 'busy') =>
      monthlyBill(p, scenario, trafficShape(stackConfig('europe-west3').settings, 0)).items.find((i) =>
        i.item.startsWith('Load balancer'),
      );
    // $0.025 an hour for 720 hours, with nothing processed.
    assert.equal(line(lb, 'idle')?.monthly, 18);
    assert.ok((line(lb, 'busy')?.monthly ?? 0) > 18, 'and the data it processes when busy');
    assert.equal(
      line(stackConfig('europe-west1', { domain: DOMAIN, domain_via: 'mapping' }).plan, 'idle'),
      undefined,
    );
    assert.equal(line(stackConfig('europe-west3').plan, 'idle'), undefined);
  });
});
