/**
 * The Pulumi program: read the stack config and the built bundles, declare the environment,
 * export its outputs. Composition only; see program.ts, environment.ts and one module per concern.
 */

import { program } from './program.ts';
import { loadBundleManifest } from './sources.ts';
import { readBuildRoot, readStackConfig } from './stack-reader.ts';

const environment = await program(readStackConfig(), loadBundleManifest(readBuildRoot()));

export const gatewayUrl = environment.gatewayUrl;
export const studioUrl = environment.studioUrl;
export const publishUrl = environment.publishUrl;
export const dataset = environment.dataset;
export const topics = environment.topics;
export const subscriptions = environment.subscriptions;
export const registryBucket = environment.registryBucket;
// With gateway.domain only (an undefined export is no stack output): the DNS record to create.
export const gatewayDomainUrl = environment.gatewayDomainUrl;
export const gatewayDnsRecord = environment.gatewayDnsRecord;
// With gateway.origin_path only: the command that points the site's HTTPS proxy at the URL map.
export const gatewayOriginUrlMap = environment.gatewayOriginUrlMap;
export const gatewayOriginPulumi = environment.gatewayOriginPulumi;
// What store and forward run as: the next pulumi up keeps it unless the settings change it.
export const billing = environment.billing;
