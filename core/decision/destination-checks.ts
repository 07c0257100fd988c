/**
 * Load-time checks of destinations that the settings schema cannot express: what each
 * platform needs at run time (config keys, secret roles, a URL), and condition values that
 * could never match. Settings that pass these checks do not fail every event at run time.
 * Pure, and free of the decision layer and the drivers, so the settings check and the drivers
 * share one table without an import cycle.
 */
import type { Settings } from '../../schemas/settings.ts';
import { conditionProblems } from '../conditions.ts';
import { DESTINATION_REQUIREMENTS } from '../platforms/requirements.ts';
import type { FieldViolation } from '../validation.ts';

/**
 * Every destination's missing requirements and unusable conditions, each naming its key
 * (`destinations[2].config.pixel_id`, `destinations[0].conditions[1].value`).
 */
export function checkDestinationNeeds(settings: Readonly<Settings>): FieldViolation[] {
  const errors: FieldViolation[] = [];
  (settings.destinations ?? []).forEach((d, i) => {
    const at = `destinations[${i}]`;
    const needs = DESTINATION_REQUIREMENTS[d.type];
    // A key no driver reads is a typo (`pixelid`) that would otherwise be ignored in silence.
    const known = [...needs.config, ...needs.optionalConfig];
    for (const key of needs.openConfig ? [] : Object.keys(d.config ?? {}))
      if (!known.includes(key))
        errors.push({
          field: `${at}.config.${key}`,
          description: `is not a config key of ${d.type} (known: ${known.join(', ') || 'none'})`,
        });
    // A disabled destination is never sent to: what it needs is checked once it is enabled.
    if (d.enabled === false) return;
    if (needs.baseUrl && !d.base_url)
      errors.push({
        field: `${at}.base_url`,
        description: `is required for ${d.type} (the URL events are POSTed to)`,
      });
    for (const key of needs.config) {
      const v = d.config?.[key];
      if (v === undefined || v === '')
        errors.push({ field: `${at}.config.${key}`, description: `is required for ${d.type}` });
    }
    for (const [key, format] of Object.entries(needs.configFormats ?? {})) {
      const v = d.config?.[key];
      if (typeof v === 'string' && v !== '' && !format.pattern.test(v))
        errors.push({
          field: `${at}.config.${key}`,
          description: `must be ${format.description} for ${d.type}`,
        });
    }
    if (needs.testEventCode && d.test_mode === true && !d.test_event_code)
      errors.push({
        field: `${at}.test_event_code`,
        description: `is required when test_mode is on for ${d.type} (without it events go out as live ones)`,
      });
    if (needs.noTestMode && d.test_mode === true)
      errors.push({
        field: `${at}.test_mode`,
        description: `is not available for ${d.type}, which has no test mode (events would go out as live ones): ${needs.noTestMode}`,
      });
    for (const role of needs.secrets) {
      if (!d.secrets?.[role])
        errors.push({
          field: `${at}.secrets.${role}`,
          description: `is required for ${d.type} (the name of the secret holding it)`,
        });
    }
  });
  errors.push(...checkDecisionSettings(settings));
  return errors;
}

/** Load-time checks of the decision rules the schema cannot express (key paths as in settings errors). */
export function checkDecisionSettings(settings: Readonly<Settings>): FieldViolation[] {
  const errors: FieldViolation[] = [];
  (settings.destinations ?? []).forEach((d, i) => {
    (d.conditions ?? []).forEach((c, j) => {
      const field = `destinations[${i}].conditions[${j}].value`;
      errors.push(...conditionProblems(c, field));
    });
  });
  return errors;
}
