/**
 * The file reader entry points hand to core/runtime-config.ts, which reads the settings from
 * EVENTBUS_SETTINGS_FILE (a file in the local data folder, or a Secret Manager secret mounted as
 * a file on Google Cloud) once at cold start.
 */
import { readFileSync } from 'node:fs';
import type { ReadText } from '../core/runtime-config.ts';

export const readSettingsText: ReadText = (path) => readFileSync(path, 'utf8');
