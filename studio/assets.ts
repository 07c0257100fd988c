/**
 * The studio's web pages as static assets: the HTML and CSS as written, and each page's script
 * (the creator, the resources page, the console's overview, explorer, SQL page and replays, rules, the destinations, their debugger and the catalogue) bundled by esbuild for the browser (core/samples, core/translate and the validators as they are;
 * `node:crypto` replaced by a SHA-256 from @noble/hashes), and the source catalogue the creator's
 * "I have …" picker offers (sources/*.yaml as JSON, read when the pages are built).
 *
 * The deployed studio carries them prebuilt in `web/` beside its bundle (scripts/build-functions.ts
 * writes them there); run from the sources, the studio builds them once when it starts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildCache, readBuild, writeBuild } from '../adapters/build-cache.ts';
import { readCatalogue, SOURCES_DIR } from '../adapters/source-catalogue.ts';

export interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

const WEB = fileURLToPath(new URL('./web', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Where the page scripts are kept between starts (adapters/build-cache.ts), under the checkout's
 * node_modules/.cache as build tools keep theirs.
 */
const CACHE = join(ROOT, 'node_modules', '.cache', 'eventbus-studio-web');
/** Part of the cache's key: bump it when the build options below change. */
const BUILD_OPTIONS_VERSION = '1';

/** The pages' paths, each with its file name and media type. */
const PAGES: readonly { readonly path: string; readonly file: string; readonly type: string }[] = [
  { path: '/', file: 'creator.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/app.css', file: 'app.css', type: 'text/css; charset=utf-8' },
  { path: '/assets/creator.js', file: 'creator.js', type: 'text/javascript; charset=utf-8' },
  { path: '/resources', file: 'resources.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/resources.js', file: 'resources.js', type: 'text/javascript; charset=utf-8' },
  { path: '/console', file: 'console.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/console.js', file: 'console.js', type: 'text/javascript; charset=utf-8' },
  { path: '/assets/uplot.css', file: 'uplot.css', type: 'text/css; charset=utf-8' },
  { path: '/explorer', file: 'explorer.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/explorer.js', file: 'explorer.js', type: 'text/javascript; charset=utf-8' },
  { path: '/sql', file: 'sql.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/sql.js', file: 'sql.js', type: 'text/javascript; charset=utf-8' },
  { path: '/rules', file: 'rules.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/rules.js', file: 'rules.js', type: 'text/javascript; charset=utf-8' },
  { path: '/replays', file: 'replays.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/replays.js', file: 'replays.js', type: 'text/javascript; charset=utf-8' },
  { path: '/assets/icon.svg', file: 'icon.svg', type: 'image/svg+xml' },
  { path: '/live', file: 'live.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/live.js', file: 'live.js', type: 'text/javascript; charset=utf-8' },
  { path: '/destinations', file: 'destinations.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/destinations.js', file: 'destinations.js', type: 'text/javascript; charset=utf-8' },
  { path: '/debugger', file: 'debugger.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/debugger.js', file: 'debugger.js', type: 'text/javascript; charset=utf-8' },
  { path: '/catalog', file: 'catalog.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/catalog.js', file: 'catalog.js', type: 'text/javascript; charset=utf-8' },
  { path: '/assets/sources.js', file: 'sources.js', type: 'text/javascript; charset=utf-8' },
  { path: '/assets/sources.json', file: 'sources.json', type: 'application/json; charset=utf-8' },
];

/**
 * Files made from the repository at build time: the source catalogue the creator offers (made
 * from `sources/` and the example translators its files name: `inputs` gets both folders).
 */
const GENERATED: Readonly<Record<string, (inputs?: string[]) => Buffer>> = {
  'sources.json': (inputs) => {
    for (const dir of [SOURCES_DIR, join(ROOT, 'examples')]) inputs?.push(...filesUnder(dir));
    return Buffer.from(JSON.stringify(readCatalogue()));
  },
};

/** Every file under a folder, relative to the checkout. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Files taken as they are from a package (the chart library's stylesheet). */
const PACKAGE_FILES: Readonly<Record<string, string>> = { 'uplot.css': 'uplot/dist/uPlot.min.css' };

/** The pages' scripts: their entry points in web/ and the bundles' file names. */
const SCRIPTS: readonly { readonly entry: string; readonly file: string }[] = [
  { entry: 'creator.ts', file: 'creator.js' },
  { entry: 'resources.ts', file: 'resources.js' },
  { entry: 'console.ts', file: 'console.js' },
  { entry: 'explorer.ts', file: 'explorer.js' },
  { entry: 'sql.ts', file: 'sql.js' },
  { entry: 'rules.ts', file: 'rules.js' },
  { entry: 'replays.ts', file: 'replays.js' },
  { entry: 'live.ts', file: 'live.js' },
  { entry: 'destinations.ts', file: 'destinations.js' },
  { entry: 'debugger.ts', file: 'debugger.js' },
  { entry: 'catalog.ts', file: 'catalog.js' },
  { entry: 'source-picker.ts', file: 'sources.js' },
];

/** The pages' files, by name, built from the sources (what the deployed bundle carries in web/). */
export async function buildWebFiles(
  options: {
    readonly cache?: boolean;
    /** Collects the files the pages are made from, relative to the checkout (a kept bundle's key). */
    readonly inputs?: string[];
  } = {},
): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const require = createRequire(import.meta.url);
  const read = (path: string) => {
    options.inputs?.push(relative(ROOT, path));
    return readFileSync(path);
  };
  for (const page of PAGES) {
    const from = PACKAGE_FILES[page.file];
    const made = GENERATED[page.file];
    if (from) files.set(page.file, read(require.resolve(from)));
    else if (made) files.set(page.file, made(options.inputs));
    else if (!page.file.endsWith('.js')) files.set(page.file, read(join(WEB, page.file)));
  }
  for (const [file, body] of await pageScripts(options.cache ?? true, options.inputs)) files.set(file, body);
  return files;
}

/** The page scripts by file name: from the cache while esbuild's inputs are unchanged, else built. */
async function pageScripts(useCacheIfThere: boolean, read?: string[]): Promise<Map<string, Buffer>> {
  const useCache = useCacheIfThere && existsSync(join(ROOT, 'node_modules'));
  const names = SCRIPTS.map((s) => s.file);
  const cache: BuildCache = {
    root: ROOT,
    dir: CACHE,
    salt: `${BUILD_OPTIONS_VERSION} esbuild ${esbuildVersion()}`,
  };
  const cached = useCache && !read ? readBuild(cache, names) : undefined;
  if (cached) return cached;
  const { scripts, inputs } = await buildScripts();
  read?.push(...inputs);
  // esbuild reads the compiler options too, though its metafile lists only modules.
  if (useCache) writeBuild(cache, scripts, ['tsconfig.json', ...inputs]);
  return scripts;
}

function esbuildVersion(): string {
  const require = createRequire(import.meta.url);
  return (JSON.parse(readFileSync(require.resolve('esbuild/package.json'), 'utf8')) as { version: string })
    .version;
}

/** The pages' scripts bundled, and the files esbuild read for them (relative to the checkout). */
async function buildScripts(): Promise<{ scripts: Map<string, Buffer>; inputs: string[] }> {
  const { build } = await import('esbuild');
  // One build for every page: the modules they share (core/samples, core/translate, the
  // validators) are parsed once, not once a page. The bundles are the same bytes as twelve
  // builds made, in about a third less time (0.7-1.0 s against 1.3-1.5 s, loaded 2 cores).
  const result = await build({
    entryPoints: SCRIPTS.map((script) => join(WEB, script.entry)),
    outdir: WEB,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    absWorkingDir: ROOT,
    alias: { 'node:crypto': join(WEB, 'crypto-shim.ts') },
    logLevel: 'error',
  });
  const scripts = new Map<string, Buffer>();
  for (const script of SCRIPTS) {
    const path = join(WEB, script.entry.replace(/\.ts$/, '.js'));
    const out = result.outputFiles.find((o) => o.path === path);
    if (!out) throw new Error(`esbuild produced no bundle for ${script.entry}`);
    scripts.set(script.file, Buffer.from(out.contents));
  }
  const inputs = Object.keys(result.metafile.inputs).map((p) => resolve(ROOT, p).slice(ROOT.length));
  return { scripts, inputs };
}

/** The pages by path: prebuilt when `web/creator.js` is there (the deployed bundle), else built now. */
export async function buildAssets(): Promise<Map<string, Asset>> {
  const prebuilt = existsSync(join(WEB, 'creator.js'));
  const files = prebuilt
    ? new Map(PAGES.map((p) => [p.file, readFileSync(join(WEB, p.file))]))
    : await buildWebFiles();
  return new Map(
    PAGES.map((p) => {
      const body = files.get(p.file);
      if (!body) throw new Error(`the studio's page ${p.file} is missing`);
      return [p.path, { type: p.type, body }];
    }),
  );
}
