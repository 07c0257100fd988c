/**
 * Settings larger than Cloud Run's 32 KiB cap on one environment variable's value: the example
 * with webhook destinations added until its JSON passes a size.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseSettings } from '../../core/settings.ts';
import type { Settings } from '../../schemas/settings.ts';

export const CLOUD_RUN_VALUE_LIMIT = 32 * 1024;

/** The example settings with enough webhook destinations to pass `bytes` as JSON. */
export function largeSettings(bytes: number): Settings {
  const text = readFileSync(resolve(import.meta.dirname, '../../environments/example.yaml'), 'utf8');
  const result = parseSettings(text);
  assert.ok(result.ok);
  const base = structuredClone(result.settings) as Settings;
  const destinations = [...(base.destinations ?? [])];
  for (let i = 0; JSON.stringify({ ...base, destinations }).length <= bytes; i++) {
    destinations.push({
      id: `partner_${i}`,
      type: 'webhook',
      base_url: `https://partner-${i}.example.com`,
      config: { path: `/hooks/eventbus/${'x'.repeat(40)}` },
      secrets: { signing_key: `partner-${i}-signing-key` },
      events: { allow: ['purchase', 'lead', 'quote_requested', 'view_content'] },
    } as NonNullable<Settings['destinations']>[number]);
  }
  return { ...base, destinations };
}
