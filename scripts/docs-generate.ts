/**
 * `npm run docs`: writes the generated parts of the docs — the settings reference
 * (docs/settings.md, from schemas/settings.ts), the platform table and the API version table
 * (docs/platforms.md, the latter also in the README, from core/platforms/platforms.ts), the
 * signature schemes (docs/senders.md, scripts/docs-signatures.ts), the creator measured on its
 * labelled corpus (docs/creator-inference.md, scripts/creator-corpus.ts) — between
 * their markers, `<!-- generated:<name> -->` and `<!-- /generated -->`; the prose around them is
 * written by hand. test/unit/scripts/docs-generate.test.ts
 * fails when the committed docs differ from what this writes. The deployer-role table
 * (docs/deploy.md, scripts/docs-deployer.ts) is made by declaring the program under Pulumi's mocks
 * for every settings variant; test/infra/variants.test.ts checks it. It also writes the catalogue of
 * Segment Action Destinations (core/platforms/segment-action/catalog.json, scripts/segment-catalog.ts)
 * and its OAuth facts (oauth-destinations.json, scripts/segment-oauth.ts), whose list is a generated
 * part of docs/catalog-destinations.md, as is what verified destinations deliver
 * (core/platforms/segment-action/deliverable.json, from test/delivery/catalog-deliverable.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogManifest, OAUTH_TOKEN_AS_SECRET } from '../core/platforms/segment-action/catalog.ts';
import { oauthDefinitions } from '../core/platforms/segment-action/oauth.ts';
import { corpusFigures } from './creator-corpus.ts';
import { deliverableTable, readDeliverable } from './docs-deliverable.ts';
import { deployerTable } from './docs-deployer.ts';
import { fill } from './docs-markers.ts';
import { apiVersionTable, countsTable, factsTable, platformTable } from './docs-platforms.ts';
import { settingsTable } from './docs-settings.ts';
import { signatureSchemeTable } from './docs-signatures.ts';
import { writeCatalog } from './segment-catalog.ts';
import { oauthDocTable, writeOAuthTable } from './segment-oauth.ts';
import { writeSubscriptions } from './segment-subscriptions.ts';

const ROOT = resolve(import.meta.dirname, '..');

/** One generated part: the file it sits in, its marker name, and its text from the file's text. */
interface Part {
  readonly file: string;
  readonly name: string;
  readonly write: (text: string) => string;
}

const PARTS: readonly Part[] = [
  { file: 'docs/settings.md', name: 'settings', write: () => settingsTable() },
  { file: 'docs/platforms.md', name: 'platforms', write: (text) => platformTable(text) },
  { file: 'docs/platforms.md', name: 'api-versions', write: () => apiVersionTable(true) },
  { file: 'docs/platforms.md', name: 'facts', write: () => factsTable() },
  { file: 'README.md', name: 'api-versions', write: () => apiVersionTable(false) },
  { file: 'docs/delivery.md', name: 'platform-counts', write: () => countsTable() },
  {
    file: 'docs/catalog-destinations.md',
    name: 'oauth-destinations',
    write: () => oauthDocTable(catalogManifest(), oauthDefinitions(), OAUTH_TOKEN_AS_SECRET),
  },
  {
    file: 'docs/catalog-destinations.md',
    name: 'deliverable',
    write: () => deliverableTable(readDeliverable(ROOT)),
  },
  { file: 'docs/senders.md', name: 'signature-schemes', write: () => signatureSchemeTable() },
  { file: 'docs/creator-inference.md', name: 'creator-corpus', write: () => corpusFigures() },
];

/**
 * Every file with generated parts, as this script would write it (file path → text); with
 * `include`, only the parts it takes (by marker name) and the files that hold one.
 */
export function generatedDocs(
  root = ROOT,
  include: (name: string) => boolean = () => true,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of PARTS.filter((p) => include(p.name))) {
    const text = out.get(part.file) ?? readFileSync(join(root, part.file), 'utf8');
    out.set(part.file, fill(text, part.name, part.write(text), part.file));
  }
  return out;
}

/**
 * docs/deploy.md with its deployer-role table made from every settings variant (asynchronous: it
 * declares them). The Pulumi program is loaded here, not with this module: the check of the other
 * parts (test/unit/scripts/docs-generate.test.ts, in the inner loop) never declares it, and
 * loading Pulumi's and its GCP provider's modules cost it half a CPU-second.
 */
export async function deployerDoc(root = ROOT): Promise<string> {
  const { declareVariants } = await import('../infra/variants.ts');
  const file = 'docs/deploy.md';
  const table = deployerTable(await declareVariants());
  return fill(readFileSync(join(root, file), 'utf8'), 'deployer-roles', table, file);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const docs = generatedDocs();
  docs.set('docs/deploy.md', await deployerDoc());
  for (const [file, text] of docs) {
    const path = join(ROOT, file);
    if (readFileSync(path, 'utf8') === text) continue;
    writeFileSync(path, text);
    console.log(`wrote ${file}`);
  }
  if (writeCatalog()) console.log('wrote core/platforms/segment-action/catalog.json');
  if (writeSubscriptions()) console.log('wrote core/platforms/segment-action/default-subscriptions.json');
  if (writeOAuthTable()) console.log('wrote core/platforms/segment-action/oauth-destinations.json');
}
