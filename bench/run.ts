/**
 * `npm run bench`: runs every suite (or those named on the command line) and prints
 * figures with their same-run baselines and ratios.
 */
import { type BenchSuite, formatFigure } from './lib.ts';

const suiteModules: Record<string, () => Promise<{ suite: BenchSuite }>> = {
  pubsub: () => import('./pubsub.ts'),
  bigquery: () => import('./bigquery.ts'),
  bundles: () => import('./bundles.ts'),
  gateway: () => import('./gateway.ts'),
  store: () => import('./store.ts'),
  delivery: () => import('./delivery.ts'),
  auth: () => import('./auth.ts'),
  storage: () => import('./storage.ts'),
  rules: () => import('./rules.ts'),
  translate: () => import('./translate.ts'),
  studio: () => import('./studio.ts'),
  syncs: () => import('./syncs.ts'),
  enrich: () => import('./enrich.ts'),
};

// Offline: Google's clients must not probe for a GCE metadata server (docs/google-wire.md §2).
process.env['METADATA_SERVER_DETECTION'] ??= 'none';

const wanted = process.argv.slice(2);
const names = Object.keys(suiteModules).filter((n) => wanted.length === 0 || wanted.includes(n));
for (const name of names) {
  const load = suiteModules[name];
  if (!load) continue;
  const { suite } = await load();
  console.log(`\n# ${suite.name}`);
  try {
    for (const figure of await suite.run()) console.log(formatFigure(figure));
  } catch (err) {
    console.log(`  failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
