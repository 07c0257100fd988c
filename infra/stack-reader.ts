/**
 * The Pulumi program's reading of its stack config (`pulumi config`): the values infra/config.ts
 * checks, and the optional `buildRoot`. Only the program (infra/index.ts) reads through Pulumi;
 * tests and the access plan call loadStackConfig directly.
 */
import { resolve } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import { loadStackConfig, REPO_ROOT, readGatewaySecretValues, type StackConfig } from './config.ts';

/** Reads the stack config through Pulumi (the deploy path); tests call loadStackConfig directly. */
export function readStackConfig(): StackConfig {
  const gcp = new pulumi.Config('gcp');
  const own = new pulumi.Config();
  const config = loadStackConfig({
    project: gcp.get('project'),
    region: gcp.get('region'),
    settingsFile: own.get('settingsFile'),
  });
  return {
    ...config,
    gatewaySecretValues: readGatewaySecretValues(config.settings, (k) => own.getSecret(k)),
  };
}

/**
 * Where the program reads `dist/bundles.json` from: the stack's optional `buildRoot` (a folder
 * holding `dist/`, relative to the repository), else the repository itself. Lets CI, and the
 * test of index.ts, point `pulumi up` at a build made elsewhere.
 */
export function readBuildRoot(): string {
  const root = new pulumi.Config().get('buildRoot');
  return root ? resolve(REPO_ROOT, root) : REPO_ROOT;
}
