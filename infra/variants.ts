/**
 * Every settings variant the repository carries — the valid fixtures
 * (test/fixtures/settings/valid/) and the environments (environments/) — declared under Pulumi's
 * mocks (infra/offline.ts) with the bundles a build for them writes. What the program declares
 * for any settings is what one of these declares: the deployer-role table (docs/deploy.md) and
 * the enabled-API check are made from them, so a new setting that declares a new resource type
 * needs a fixture, and then a row.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadStackConfig, REPO_ROOT, type StackConfig } from './config.ts';
import { declareEnvironment } from './environment.ts';
import { bundlesFor, declare, type Recorded } from './offline.ts';

/** The folders whose YAML files are settings variants, relative to the repository. */
export const VARIANT_DIRS = ['environments', 'test/fixtures/settings/valid'] as const;

/** Every variant's settings file, relative to the repository, sorted. */
export function variantFiles(root = REPO_ROOT): string[] {
  return VARIANT_DIRS.flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => `${dir}/${f}`),
  ).sort();
}

/** A variant's stack config: its own project and region are the stack's. */
export function variantConfig(file: string, root = REPO_ROOT): StackConfig {
  const raw = parse(readFileSync(join(root, file), 'utf8')) as { project?: string; region?: string };
  return loadStackConfig({ project: raw.project, region: raw.region, settingsFile: file }, root);
}

export interface DeclaredVariant {
  readonly file: string;
  readonly config: StackConfig;
  readonly recorded: Recorded;
}

/** Declares each variant in turn (the mocks are one per process: never two at once). */
export async function declareVariants(files = variantFiles()): Promise<DeclaredVariant[]> {
  const out: DeclaredVariant[] = [];
  for (const file of files) {
    const config = variantConfig(file);
    const recorded = await declare(() => declareEnvironment(config, bundlesFor(config.settings)));
    out.push({ file, config, recorded });
  }
  return out;
}
