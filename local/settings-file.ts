/**
 * Finding and reading an environment's settings file: `--env local` means
 * environments/local.yaml; a path is taken as given. Shared by the CLI and the supervisor.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { segmentActionViolations } from '../core/platforms/segment-action/check.ts';
import { formatErrors, parseSettings } from '../core/settings.ts';
import type { FieldViolation } from '../core/validation.ts';
import type { Settings } from '../schemas/settings.ts';

/** The repository root (this file lives in <root>/local). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Path of the settings file for an environment name (`local`) or a path (`./x.yaml`). */
export function environmentFile(nameOrPath: string, cwd: string = process.cwd()): string {
  if (/^[a-z][a-z0-9_-]*$/.test(nameOrPath)) return resolve(REPO_ROOT, 'environments', `${nameOrPath}.yaml`);
  return isAbsolute(nameOrPath) ? nameOrPath : resolve(cwd, nameOrPath);
}

/** Invalid settings: the message lists every bad key, one per line, prefixed by the file. */
export class SettingsFileError extends Error {
  readonly file: string;
  readonly errors: readonly FieldViolation[];
  constructor(file: string, errors: readonly FieldViolation[]) {
    super(
      `${file}: ${errors.length} problem${errors.length === 1 ? '' : 's'}\n${formatErrors(errors)
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n')}`,
    );
    this.name = 'SettingsFileError';
    this.file = file;
    this.errors = errors;
  }
}

/** Reads and validates a settings file; throws SettingsFileError (bad keys) or a read error. */
export function readSettingsFile(file: string): Readonly<Settings> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new SettingsFileError(file, [{ field: '(file)', description: (err as Error).message }]);
  }
  const result = parseSettings(text);
  if (!result.ok) throw new SettingsFileError(file, result.errors);
  // segment_action destinations against the catalogue manifest: too large for every function's
  // cold start (core/settings.ts), so checked where settings files are read (settings check, start).
  const catalogue = segmentActionViolations(result.settings);
  if (catalogue.length > 0) throw new SettingsFileError(file, catalogue);
  return result.settings;
}
