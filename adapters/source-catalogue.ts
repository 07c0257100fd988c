/**
 * Reads the source catalogue (`sources/<name>.yaml`, docs/sources/README.md) for `eventbus
 * source`, the studio's creator (its `sources.json` asset) and the tests: each file's translator spec is its own, or the spec of the example
 * translator it names with `translator.from` (one copy of the Segment, GA4 and Mailchimp
 * mappings, shared with examples/translators/).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Source, SourceAuth } from '../core/translate/sources.ts';

/**
 * The repository's root, where `sources/` and `examples/` are. From `import.meta.url`, which the
 * deployed bundles define (they are CommonJS: `import.meta.dirname` would be undefined there).
 */
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the catalogue lives. */
export const SOURCES_DIR = join(REPO_ROOT, 'sources');

interface SourceFile {
  kind?: unknown;
  name: string;
  title: string;
  auth: SourceAuth;
  secret?: string;
  connect: string;
  ga4_client_id: string;
  translator: { description: string; spec?: Record<string, unknown>; from?: string };
}

/** One catalogue file read, its spec resolved. */
export function readSource(path: string): Source {
  const doc = parse(readFileSync(path, 'utf8')) as SourceFile;
  if (doc?.kind !== 'Source') throw new Error(`${path}: not a Source document (kind: Source)`);
  const from = doc.translator.from;
  const spec = from
    ? (parse(readFileSync(join(REPO_ROOT, from), 'utf8')) as { spec: Record<string, unknown> }).spec
    : doc.translator.spec;
  if (!spec) throw new Error(`${path}: translator.spec or translator.from is required`);
  return {
    name: doc.name,
    title: doc.title,
    auth: doc.auth,
    ...(doc.secret ? { secret: doc.secret } : {}),
    connect: doc.connect,
    ga4_client_id: doc.ga4_client_id,
    description: doc.translator.description,
    spec,
  };
}

/** Every source of the catalogue, by name. */
export function readCatalogue(dir = SOURCES_DIR): Source[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => readSource(join(dir, f)));
}
