/**
 * `npm run build:functions`: one esbuild bundle per deployable (the `store` and `forward`
 * functions, the gateway), CommonJS for Node 24, archived with a content hash in the name so
 * a changed bundle is a new Cloud Storage object and a new revision. `dist/bundles.json`
 * lists the archives for the Pulumi program.
 *
 * Functions keep `@google-cloud/functions-framework` external and list it in their own
 * package.json: a bundled copy registers targets into a map the runtime never reads
 * (GCP-WIRE.md §7). The gateway is a plain node:http server and is bundled whole, since its
 * archive is run as is, with no install step.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type ArchiveEntry, tarGz, zip } from './archive.ts';

export type BundleName = 'store' | 'forward' | 'gateway';

export interface BundleSpec {
  /** A deployable's name (`BundleName`), or a test fixture's. */
  readonly name: string;
  /** Entry module, relative to the repository root. */
  readonly entry: string;
  /** `function`: a functions-framework source (zip); `service`: a Cloud Run source (tar.gz). */
  readonly kind: 'function' | 'service';
}

/** The one list of deployables: the build, the tests, the bench and the Pulumi program read it. */
export const BUNDLES: readonly (BundleSpec & { readonly name: BundleName })[] = Object.freeze([
  { name: 'store', entry: 'functions/store/index.ts', kind: 'function' },
  { name: 'forward', entry: 'functions/forward/index.ts', kind: 'function' },
  { name: 'gateway', entry: 'gateway/main.ts', kind: 'service' },
]);

export interface BuiltBundle {
  readonly name: string;
  readonly kind: BundleSpec['kind'];
  /** Folder holding the unpacked bundle (what the functions framework is started on). */
  readonly dir: string;
  /** The file Node runs: `index.js` for functions, `main.js` for the gateway. */
  readonly main: string;
  /** The archive to upload, relative to the repository root. */
  readonly archive: string;
  /** Cloud Storage object name: `<name>-<hash>.<ext>`. */
  readonly object: string;
  readonly sha256: string;
  readonly bytes: number;
}

export type BundleManifest = Readonly<Record<string, BuiltBundle>>;

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const FRAMEWORK = '@google-cloud/functions-framework';

/** Packages a function bundle leaves to the Cloud Functions build (`npm install` there). */
export const FUNCTION_EXTERNALS = [
  FRAMEWORK,
  '@google-cloud/bigquery',
  '@google-cloud/pubsub',
  'google-auth-library',
];

function externalVersions(frameworkVersion: string): Record<string, string> {
  const rootPackage = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const out: Record<string, string> = {};
  for (const name of FUNCTION_EXTERNALS) {
    out[name] = name === FRAMEWORK ? frameworkVersion : (rootPackage.dependencies[name] ?? 'latest');
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
  const main = isFunction ? 'index.js' : 'main.js';
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const result = await build({
    entryPoints: [join(root, spec.entry)],
    outfile: join(dir, main),
    bundle: true,
    platform: 'node',
    target: 'node24',
    // CommonJS: Google's clients read __dirname, which an ESM bundle does not have.
    format: 'cjs',
    // Functions: the framework and Google's clients are installed by the Cloud Functions build
    // (listed in the bundle's package.json), so the bundle parses only our code at cold start
    // and the clients load on first use (`await import(...)` stays a lazy require). The gateway
    // runs on Cloud Run with no build step, so it carries everything inlined.
    external: isFunction ? FUNCTION_EXTERNALS : [],
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
  });
  const files: ArchiveEntry[] = [];
  for (const out of result.outputFiles) {
    files.push({ name: relative(dir, out.path).split('\\').join('/'), data: Buffer.from(out.contents) });
  }
  const pkg = {
    name: `eventbus-${spec.name}`,
    private: true,
    main,
    engines: { node: '>=24' },
    // Installed by the Cloud Functions build; everything else is inlined.
    dependencies: isFunction ? externalVersions(frameworkVersion) : {},
  };
  files.push({ name: 'package.json', data: Buffer.from(`${JSON.stringify(pkg, null, 2)}\n`) });
  for (const f of files) writeFileSync(join(dir, f.name), f.data);

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
  };
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
}

// No top-level await: tests and the bench import this module, and mocha loads files with require().
if (import.meta.main) {
  buildBundles().then(
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
