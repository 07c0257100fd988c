/**
 * The bucket of deployable archives and one object per bundle. Object names carry the
 * content hash, so a new bundle is a new object and the function or service takes a new revision.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { BundleManifest, BundleName } from './bundle-manifest.ts';
import { REPO_ROOT } from './config.ts';

/**
 * Every bundle the program uploads: the functions, the gateway, the studio, and store's and
 * forward's Cloud Run service bundles (run instead of the functions when instance-billed);
 * forward-catalog's too when a catalogue destination exists (CATALOG_BUNDLE).
 */
const DEPLOYED_BUNDLES: readonly BundleName[] = [
  'store',
  'forward',
  'schedule',
  'gateway',
  'studio',
  'store-service',
  'forward-service',
];

/** Built only for settings with a catalogue destination (`npm run build:functions -- --settings <file>`). */
const CATALOG_BUNDLE = 'forward-catalog' as const satisfies BundleName;

/** Reads `dist/bundles.json`, written by `npm run build:functions`. */
export function loadBundleManifest(root: string = REPO_ROOT): BundleManifest {
  const file = join(root, 'dist', 'bundles.json');
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8')) as BundleManifest;
  } catch {
    throw new Error(`${file} not found: run \`npm run build:functions\` before \`pulumi up\``);
  }
  for (const name of DEPLOYED_BUNDLES) {
    if (!manifest[name])
      throw new Error(`${file} has no "${name}" bundle: rebuild with npm run build:functions`);
  }
  return manifest;
}

export interface SourcesArgs {
  readonly project: string;
  readonly region: string;
  readonly bundles: BundleManifest;
  /** Readers of the archives (the functions' build account). */
  readonly readers: readonly pulumi.Input<string>[];
  /** The Segment destination folders the settings use: forward-catalog's bundle must carry them. */
  readonly catalogDestinations?: readonly string[];
}

export class Sources extends pulumi.ComponentResource {
  readonly bucket: gcp.storage.Bucket;
  readonly objects: Readonly<Record<Exclude<BundleName, typeof CATALOG_BUNDLE>, gcp.storage.BucketObject>> &
    Readonly<Partial<Record<typeof CATALOG_BUNDLE, gcp.storage.BucketObject>>>;

  constructor(name: string, args: SourcesArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Sources', name, {}, opts);
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    this.bucket = new gcp.storage.Bucket(
      `${name}-sources`,
      {
        project: args.project,
        name: `${args.project}-eventbus-sources`,
        location: args.region,
        uniformBucketLevelAccess: true,
        publicAccessPrevention: 'enforced',
        // Archives are rebuilt from the repository at will: nothing here needs protecting.
        forceDestroy: true,
      },
      child,
    );
    const objects: Partial<Record<BundleName, gcp.storage.BucketObject>> = {};
    const wanted = args.catalogDestinations ?? [];
    if (wanted.length > 0) catalogBundleProblem(args.bundles, wanted);
    const deployed: BundleName[] = [...DEPLOYED_BUNDLES, ...(wanted.length > 0 ? [CATALOG_BUNDLE] : [])];
    for (const bundleName of deployed) {
      const bundle = args.bundles[bundleName];
      if (!bundle) throw new Error(`no "${bundleName}" bundle in the manifest`);
      objects[bundleName] = new gcp.storage.BucketObject(
        `${name}-source-${bundleName}`,
        {
          bucket: this.bucket.name,
          name: bundle.object,
          source: new pulumi.asset.FileAsset(resolve(REPO_ROOT, bundle.archive)),
        },
        { parent: this },
      );
    }
    args.readers.forEach((member, i) => {
      new gcp.storage.BucketIAMMember(
        `${name}-sources-reader-${i}`,
        { bucket: this.bucket.name, role: 'roles/storage.objectViewer', member },
        { parent: this },
      );
    });
    this.objects = objects as Sources['objects'];
    this.registerOutputs({ bucket: this.bucket.name });
  }
}

/**
 * Refuses a forward-catalog bundle that is missing or does not carry every destination folder
 * the settings use (a bundle built for other settings would reject their deliveries at run time).
 */
function catalogBundleProblem(bundles: BundleManifest, wanted: readonly string[]): void {
  const built = bundles[CATALOG_BUNDLE];
  const rebuild = 'rebuild with `npm run build:functions -- --settings <this environment’s settings file>`';
  if (!built)
    throw new Error(
      `the settings have catalogue destinations and dist/bundles.json has no "${CATALOG_BUNDLE}" bundle: ${rebuild}`,
    );
  const missing = wanted.filter((slug) => !(built.segmentDestinations ?? []).includes(slug));
  if (missing.length > 0)
    throw new Error(`the "${CATALOG_BUNDLE}" bundle does not carry ${missing.join(', ')}: ${rebuild}`);
}
