/**
 * The Functions component (infra/functions.ts) declared alone under the mocks, over a plan, with
 * its endpoints once resolved; and the example settings it is usually declared with.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../../core/plan.ts';
import { parseSettings } from '../../core/settings.ts';
import { Functions } from '../../infra/functions.ts';
import type { Settings } from '../../schemas/settings.ts';
import { declare, resolveOutput } from './support.ts';

export function example(): Settings {
  const loaded = parseSettings(
    readFileSync(resolve(import.meta.dirname, '../../environments/example.yaml'), 'utf8'),
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.settings;
}

/** The example with other cost settings. */
export const withCost = (cost: NonNullable<Settings['cost']>): Settings => ({ ...example(), cost });
/** store and forward instance-billed. */
export const INSTANCE = { billing: { store: 'instance', forward: 'instance' } } as const;
/** A development environment: a name, a project and a region. */
export const minimal = (): Settings => ({ name: 'dev', project: 'acme-dev-project', region: 'europe-west1' });

/** The Functions component over a plan, with its endpoints once resolved. */
export async function declareFunctions(p: Plan, settings: Settings, withServiceObjects = true) {
  let functions: Functions | undefined;
  const recorded = await declare(() => {
    const object = (n: string) =>
      new gcp.storage.BucketObject(`source-${n}`, {
        bucket: 'sources',
        name: `${n}-0123456789abcdef.tar.gz`,
        // Never read under the mocks (a StringAsset would hang them).
        source: new pulumi.asset.FileAsset(`dist/archives/${n}-0123456789abcdef.tar.gz`),
      });
    functions = new Functions('acme-prod', {
      plan: p,
      settings,
      sourceBucket: 'sources',
      sourceObjects: { store: 'store.zip', forward: 'forward.zip', schedule: 'schedule.zip' },
      serviceAccounts: { store: 'store@x', forward: 'forward@x', schedule: 'schedule@x' },
      buildServiceAccount: 'projects/p/serviceAccounts/build@x',
      invoker: 'serviceAccount:push@x',
      settingsFile: { secretId: 'settings', version: '1' },
      ...(withServiceObjects
        ? { serviceObjects: { store: object('store-service'), forward: object('forward-service') } }
        : {}),
    });
  });
  // Resolved once every registration is done (awaiting them inside the stack would wait forever).
  const declared = functions?.endpoints ?? {};
  const names = Object.keys(declared) as (keyof typeof declared)[];
  const uris = await Promise.all(names.map((n) => resolveOutput(declared[n])));
  return { recorded, endpoints: Object.fromEntries(names.map((n, i) => [n, uris[i] ?? ''])) };
}
