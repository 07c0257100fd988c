/**
 * The webhook format warnings of `settings check`: a webhook destination without `config.format`
 * (written before the choice existed) keeps sending our own `eventbus-v2` format, which receivers
 * verify with our snippet only; `standard-webhooks` is verified with one call of a maintained
 * library (docs/delivery.md, "Webhooks"). Also a key rotation that cannot work as written: a
 * previous key with no end date, or one whose end has passed and can be removed.
 */
import type { Settings } from '../../../schemas/settings.ts';
import {
  CURRENT_VERSION_KEY,
  DEFAULT_NEW_FORMAT,
  LEGACY_FORMAT,
  PREVIOUS_KEY_ROLE,
  PREVIOUS_UNTIL_KEY,
  PREVIOUS_VERSION_KEY,
  rotationState,
} from './formats.ts';

/** One warning per webhook destination that needs a look; none when all say their format. */
export function webhookFormatWarnings(settings: Readonly<Settings>, now: Date): string[] {
  const out: string[] = [];
  for (const d of settings.destinations ?? []) {
    if (d.type !== 'webhook') continue;
    const at = `destination ${d.id}`;
    if (d.config?.['format'] === undefined)
      out.push(
        `${at}: webhook without config.format sends the ${LEGACY_FORMAT} format (X-Eventbus-Signature), as ` +
          `before; set format: ${DEFAULT_NEW_FORMAT} once the receiver verifies Standard Webhooks ` +
          `(webhook-id, webhook-timestamp, webhook-signature; docs/delivery.md), or format: ${LEGACY_FORMAT} ` +
          `to keep it and silence this warning.`,
      );
    // The previous release's rotation: a second secret. It keeps working; versions of one secret
    // are the form to move to (docs/delivery.md, "Key rotation").
    if (d.secrets?.[PREVIOUS_KEY_ROLE] !== undefined)
      out.push(
        d.config?.[PREVIOUS_VERSION_KEY] !== undefined
          ? `${at}: both secrets.${PREVIOUS_KEY_ROLE} and config.${PREVIOUS_VERSION_KEY} name the previous key; ` +
              `the version signs, remove secrets.${PREVIOUS_KEY_ROLE}.`
          : `${at}: secrets.${PREVIOUS_KEY_ROLE} names a second secret for the previous key, the previous ` +
              `release's form, which still signs; name versions of the signing key's one secret instead: ` +
              `config.${CURRENT_VERSION_KEY} (the version that signs now) and config.${PREVIOUS_VERSION_KEY} ` +
              `(the one before it), with config.${PREVIOUS_UNTIL_KEY}.`,
      );
    const rotation = rotationState(d, now);
    if (rotation.state === 'ended' && rotation.until === undefined)
      out.push(
        `${at}: a previous key is named without config.${PREVIOUS_UNTIL_KEY}, so the ` +
          `previous key never signs; set until when it should sign alongside the current one.`,
      );
    else if (rotation.state === 'ended')
      out.push(
        `${at}: the key rotation ended at ${rotation.until}: only the current key signs; remove the ` +
          `previous key (config.${PREVIOUS_VERSION_KEY} or secrets.${PREVIOUS_KEY_ROLE}) and config.${PREVIOUS_UNTIL_KEY}.`,
      );
  }
  return out;
}
