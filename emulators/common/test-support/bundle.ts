/**
 * Test support shared by the emulator packages: builds a package's bundle with the very esbuild
 * command of its `prepack` script, into a fresh directory, so a test can run it without
 * TypeScript. The directory is made under the package's git-ignored dist/, not the system's temp
 * directory: the bundle leaves third-party dependencies external, and Node finds them only by
 * walking up from the bundle to a node_modules.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { exited, launchEmulator } from './emulator-process.ts';

export interface BuiltBundle {
  /** The bundle's entry point, `<dir>/main.js`. */
  readonly main: string;
  remove(): void;
}

/** Runs the `prepack` script of the package in `packageDir` with its --outfile moved to a new directory. */
export function buildBundle(packageDir: string): BuiltBundle {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const [command, ...args] = (manifest.scripts?.['prepack'] ?? '').split(/\s+/);
  if (command !== 'esbuild') throw new Error(`${packageDir}: prepack is not an esbuild command`);
  mkdirSync(join(packageDir, 'dist'), { recursive: true });
  const dir = mkdtempSync(join(packageDir, 'dist', 'bundle-test-'));
  const main = join(dir, 'main.js');
  const esbuild = createRequire(import.meta.url).resolve('esbuild/bin/esbuild');
  const moved = args.map((a) => (a.startsWith('--outfile=') ? `--outfile=${main}` : a));
  execFileSync(esbuild, moved, { cwd: packageDir, stdio: ['ignore', 'ignore', 'pipe'] });
  return { main, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Builds the package's bundle, starts it (`<name> listening on …`) with Node's type stripping
 * off, so that no TypeScript can run, calls `use` with its URL, then stops it with SIGTERM and
 * removes the bundle; resolves with the emulator's exit code.
 */
export async function withBundledEmulator(
  packageDir: string,
  name: string,
  args: readonly string[],
  use: (url: string) => Promise<void>,
): Promise<number | string | null> {
  const bundle = buildBundle(packageDir);
  try {
    const { child, url } = await launchEmulator(bundle.main, name, args, ['--no-experimental-strip-types']);
    try {
      await use(url);
    } finally {
      child.kill('SIGTERM');
    }
    return await exited(child);
  } finally {
    bundle.remove();
  }
}
