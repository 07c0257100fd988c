/** A page's script bundled by esbuild as a site bundles an SDK: one browser IIFE, the repository's node_modules. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO } from './local-start.ts';

/** Bundles `source` (written to `<dir>/<name>-entry.js`) and returns the bundle's text. */
export async function bundleForBrowser(dir: string, name: string, source: string): Promise<string> {
  const entry = join(dir, `${name}-entry.js`);
  writeFileSync(entry, source);
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    nodePaths: [join(REPO, 'node_modules')],
    logLevel: 'silent',
  });
  return out.outputFiles[0]?.text ?? '';
}
