/**
 * The creator's step 3 (docs/studio.md): a control per platform a new event can be sent to, each
 * as the platform's facts declare it (core/platforms/<platform>/facts.ts `step3`): a choice among
 * its standard events, or a field for the id its conversions go to. A platform added to the list
 * of facts gets its control here without the page changing.
 */
import { factsWith } from '../../core/platforms/facts.ts';
import type { DestinationType } from '../../schemas/settings.ts';
import { $, el } from './common.ts';

/** The platforms step 3 offers, in the list's order. */
const OFFERED = factsWith('step3');

/** The control's element id for a platform. */
export const controlId = (type: DestinationType): string => `platform-${type}`;

/** Every control's id, for the page's change listeners. */
export const PLATFORM_CONTROL_IDS: readonly string[] = OFFERED.map((f) => controlId(f.type));

/** Puts a labelled control per platform in `#platform-controls`. */
export function renderPlatformControls(): void {
  $('platform-controls').replaceChildren(
    ...OFFERED.flatMap((f) => {
      const id = controlId(f.type);
      const c = f.step3;
      const control =
        c.kind === 'events'
          ? el(
              'select',
              { id },
              el('option', { value: '' }, 'not sent'),
              ...(f.events?.standardEvents ?? []).map((e) => el('option', { value: e }, e)),
            )
          : el('input', {
              id,
              class: 'code',
              type: 'text',
              pattern: c.pattern,
              placeholder: 'not sent',
              spellcheck: 'false',
              ...(c.numeric ? { inputmode: 'numeric' } : {}),
            });
      return [el('label', { for: id }, c.label), control];
    }),
  );
}

/** The platforms' events step 3 names (a standard event, or an id), by destination type. */
export function platformEvents(): Partial<Record<DestinationType, string>> {
  const events: Partial<Record<DestinationType, string>> = {};
  for (const f of OFFERED) {
    const v = $<HTMLInputElement | HTMLSelectElement>(controlId(f.type)).value.trim();
    if (v) events[f.type] = v;
  }
  return events;
}
