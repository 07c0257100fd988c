/**
 * How `forward-catalog`'s bundle carries Segment's destinations (issue #65; docs/deploy.md,
 * "Catalogue destinations"): only the folders its settings use, and nothing of Segment's in any
 * other function.
 *
 * The runtime loads a destination by its folder's name at run time (a deep import of
 * `@segment/action-destinations/dist/destinations/<slug>`), which no bundler can follow. So the
 * archive holds a small package under that name, installed from the archive by the function's
 * package.json (`file:`), whose `dist/destinations/<slug>/index.js` is that folder bundled with
 * esbuild, one file per carried folder: the runtime's import resolves as it does in the
 * repository, a folder not carried does not resolve at all, and the function's own `index.js`
 * holds no Segment code, so its cold start parses none (a destination's file is read at its first
 * delivery). What the destinations share with the runtime, actions-core, is installed beside
 * them (SEGMENT_RUNTIME_EXTERNALS), one copy for all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';
import {
  CATALOG_FUNCTION,
  SEGMENT_DESTINATIONS_DIR,
  SEGMENT_DESTINATIONS_PACKAGE,
} from '../core/deploy/catalog-function.ts';
import type { ArchiveEntry } from './archive.ts';

/**
 * Segment's action runtime stays a package the Cloud Functions build installs (4 MB with its
 * dependencies, not the 90 MB of every destination): the runtime finds it with `require.resolve`
 * and wraps its fetch (adapters/segment-actions/run.ts), and each carried destination
 * requires the same copy, so there is one `Destination` class and one set of error classes.
 */
export const SEGMENT_RUNTIME_EXTERNALS: readonly string[] = ['@segment/actions-core'];

/** The folder of the archive that holds the stand-in package. */
export const SEGMENT_PACKAGE_DIR = 'segment-destinations';

const destinationPath = (slug: string) =>
  `${SEGMENT_DESTINATIONS_PACKAGE}/${SEGMENT_DESTINATIONS_DIR}/${slug}`;

/**
 * The stand-in package's files: its package.json (the installed version, so a log says which
 * code runs) and each carried folder bundled as its `index.js`, with actions-core left to the
 * install. `common` is the function's own esbuild options (target, format, shims).
 */
export async function segmentFiles(
  slugs: readonly string[],
  root: string,
  common: BuildOptions,
): Promise<ArchiveEntry[]> {
  const installed = JSON.parse(
    readFileSync(join(root, 'node_modules', SEGMENT_DESTINATIONS_PACKAGE, 'package.json'), 'utf8'),
  ) as { version: string };
  const pkg = {
    name: SEGMENT_DESTINATIONS_PACKAGE,
    version: installed.version,
    private: true,
    description: `The destinations ${CATALOG_FUNCTION} carries, each bundled into its folder's index.js`,
    license: 'MIT',
  };
  const files: ArchiveEntry[] = [
    { name: `${SEGMENT_PACKAGE_DIR}/package.json`, data: Buffer.from(`${JSON.stringify(pkg, null, 2)}\n`) },
  ];
  for (const slug of slugs) {
    const name = `${SEGMENT_PACKAGE_DIR}/${SEGMENT_DESTINATIONS_DIR}/${slug}/index.js`;
    const result = await build({
      ...common,
      stdin: {
        contents: `module.exports = require(${JSON.stringify(destinationPath(slug))});`,
        resolveDir: root,
        loader: 'js',
      },
      outfile: name,
      external: [...SEGMENT_RUNTIME_EXTERNALS],
      metafile: true,
      write: false,
    });
    // A destination importing another's files would carry a folder the settings do not use.
    const others = bundledDestinations(result.metafile).filter((s) => s !== slug);
    if (others.length > 0)
      throw new Error(`${slug}: its bundle reaches other destination folders (${others.join(', ')})`);
    const out = result.outputFiles?.[0];
    if (!out) throw new Error(`${slug}: esbuild wrote nothing`);
    files.push({ name, data: Buffer.from(out.contents) });
  }
  return files;
}

/** The packages of Segment's runtime, refused in any function but forward-catalog. */
const SEGMENT_PACKAGES = /^@segment\/(action-destinations|actions-core|actions-shared)(\/.*)?$/;

/**
 * Refuses, while bundling `bundle`, an import of Segment's packages unless it is Segment's runtime
 * inside forward-catalog (left to the install) or a destination it carries (left to the stand-in
 * package, where that folder's bundle is): the package index (which loads all 177 folders) and
 * any other destination fail the build, naming the import.
 */
export function segmentPlugin(bundle: string, allowed: readonly string[]): Plugin {
  const carried = new Set(allowed.map(destinationPath));
  return {
    name: 'eventbus-segment',
    setup(b) {
      b.onResolve({ filter: SEGMENT_PACKAGES }, (args) => {
        if (bundle === CATALOG_FUNCTION) {
          const path = args.path.replace(/\/index(\.js)?$/, '');
          const destination = path.startsWith(`${SEGMENT_DESTINATIONS_PACKAGE}/${SEGMENT_DESTINATIONS_DIR}/`);
          if (!destination && args.path !== SEGMENT_DESTINATIONS_PACKAGE) return undefined;
          if (carried.has(path)) return { path: args.path, external: true };
        }
        return {
          errors: [
            {
              text:
                bundle === CATALOG_FUNCTION
                  ? `${bundle} imports ${args.path}, which its settings do not use (it carries ${allowed.join(', ') || 'none'})`
                  : `${bundle} imports ${args.path}: Segment's runtime belongs in ${CATALOG_FUNCTION} only`,
            },
          ],
        };
      });
    },
  };
}

/** The destination folders a build's inputs come from (`…/dist/destinations/<slug>/…`), sorted. */
export function bundledDestinations(metafile: Metafile | undefined): string[] {
  const folders = new Set<string>();
  const marker = `/${SEGMENT_DESTINATIONS_PACKAGE}/${SEGMENT_DESTINATIONS_DIR}/`;
  for (const input of Object.keys(metafile?.inputs ?? {})) {
    const at = input.indexOf(marker);
    if (at >= 0) folders.add(input.slice(at + marker.length).split('/')[0] ?? '');
  }
  return [...folders].sort();
}
