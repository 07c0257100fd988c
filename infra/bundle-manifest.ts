/**
 * What the Pulumi program reads from a build: the manifest `npm run build:functions`
 * (scripts/build-functions.ts) writes to `dist/bundles.json`, one entry per archive. The program
 * owns the format and the build writes it, so scripts/ imports infra/ and never the other way.
 */

/** The deployables the build makes and the program uploads. */
export type BundleName =
  | 'store'
  | 'forward'
  | 'schedule'
  | 'gateway'
  | 'studio'
  | 'store-service'
  | 'forward-service'
  | 'forward-catalog';

/** `function`: a functions-framework source (zip); `service`: a Cloud Run source (tar.gz). */
export type BundleKind = 'function' | 'service';

export interface BuiltBundle {
  readonly name: string;
  readonly kind: BundleKind;
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
  /** forward-catalog: the Segment destination folders it carries (the Pulumi program checks them). */
  readonly segmentDestinations?: readonly string[];
}

export type BundleManifest = Readonly<Record<string, BuiltBundle>>;
