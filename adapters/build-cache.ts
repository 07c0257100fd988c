/**
 * A build's outputs kept between runs, reused while every file the build read has the same bytes.
 * The studio's page scripts use it (studio/assets.ts): every local environment and studio test
 * starts a studio, and bundling its pages costs esbuild 0.7-1.0 s of CPU each time.
 *
 * The record (`manifest.json`) names the inputs, relative to `root`, and the key their bytes make
 * with `salt` (the builder's version and options). Reading hashes the listed inputs again: an
 * edited file changes the key and the caller builds. A new import can only come from an edited
 * file, so the list stays complete. Files are written beside their final name and renamed into
 * it, so processes that build at once share the cache without reading half a file.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BuildCache {
  /** What input paths are relative to. */
  readonly root: string;
  /** Where the outputs and the record are kept. */
  readonly dir: string;
  /** Whatever else decides the output: the builder's version, its options. */
  readonly salt: string;
}

interface Record_ {
  readonly key: string;
  readonly inputs: readonly string[];
}

function keyOf(cache: BuildCache, inputs: readonly string[]): string {
  const hash = createHash('sha256').update(`${cache.salt}\0`);
  for (const input of inputs)
    hash
      .update(`${input}\0`)
      .update(readFileSync(join(cache.root, input)))
      .update('\0');
  return hash.digest('hex').slice(0, 32);
}

/** The named outputs, when the record's inputs still have the bytes they were built from. */
export function readBuild(cache: BuildCache, names: readonly string[]): Map<string, Buffer> | undefined {
  try {
    const record = JSON.parse(readFileSync(join(cache.dir, 'manifest.json'), 'utf8')) as Record_;
    if (keyOf(cache, record.inputs) !== record.key) return undefined;
    return new Map(names.map((name) => [name, readFileSync(join(cache.dir, record.key, name))]));
  } catch {
    // No record yet, an input or output gone: build.
    return undefined;
  }
}

/** Keeps the outputs of a build that read `inputs`; a cache that cannot be written is skipped. */
export function writeBuild(
  cache: BuildCache,
  outputs: ReadonlyMap<string, Buffer>,
  inputs: readonly string[],
): void {
  try {
    const key = keyOf(cache, inputs);
    const dir = join(cache.dir, key);
    mkdirSync(dir, { recursive: true });
    const put = (path: string, body: Buffer | string) => {
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, body);
      renameSync(tmp, path);
    };
    for (const [name, body] of outputs) put(join(dir, name), body);
    put(join(cache.dir, 'manifest.json'), JSON.stringify({ key, inputs } satisfies Record_));
    // Only the newest build is read: the others' outputs go (a reader that loses a race builds).
    for (const other of readdirSync(cache.dir, { withFileTypes: true }))
      if (other.isDirectory() && other.name !== key)
        rmSync(join(cache.dir, other.name), { recursive: true, force: true });
  } catch {
    // A read-only checkout: the next run builds again.
  }
}
