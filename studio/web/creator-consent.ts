/**
 * The creator's consent warning (step 3, docs/studio.md): which of the platforms a new event is
 * sent to would skip it for want of a consent purpose the page has not been told where to find,
 * from each platform's declared purposes (core/platforms/<platform>/facts.ts). No DOM here: the
 * unit test reads it as the page does.
 */
import { PLATFORM_FACTS } from '../../core/platforms/facts.ts';
import type { ConsentPurposeName } from '../../schemas/consent-purposes.ts';
import type { DestinationType } from '../../schemas/settings.ts';

/** "a", "a and b", "a, b and c". */
const and = (words: readonly string[]): string =>
  words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;

/**
 * The warning for the platforms chosen in step 3 (`chosen`, by destination type) when the
 * consent they need is not all accounted for (`has`: a purpose given at collection or mapped from
 * a column), else the empty string. Each platform that would skip the event is named with the
 * purposes it needs; then the purposes to say where they come from.
 */
export function consentWarning(
  chosen: readonly DestinationType[],
  has: (purpose: ConsentPurposeName) => boolean,
): string {
  const short = chosen.map((t) => PLATFORM_FACTS[t]).filter((f) => f.consent.some((p) => !has(p)));
  if (short.length === 0) return '';
  // Platforms needing the same purposes are named together.
  const groups = new Map<string, string[]>();
  for (const f of short) {
    const key = and(f.consent.map((p) => p.replaceAll('_', ' ')));
    groups.set(key, [...(groups.get(key) ?? []), f.names.short]);
  }
  const missing = [...new Set(short.flatMap((f) => f.consent.filter((p) => !has(p))))];
  const who = [...groups].map(
    ([purposes, names]) =>
      `${and(names)} ${names.length === 1 ? 'receives' : 'receive'} an event only with consent to ${purposes}`,
  );
  return `${who.join(', ')}: say where consent to ${missing.join(', ')} comes from above, or nothing is sent there.`;
}
