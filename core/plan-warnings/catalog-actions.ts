/**
 * Warnings about a `segment_action` destination that Segment's app would accept but that rarely
 * does what its user expects (docs/catalog-destinations.md): one the project's own run of the
 * catalogue made deliver no ordinary event (deliverable.ts: verified is not delivered), two actions named without `when` that
 * both take one catalogue event (Klaviyo's trackEvent and orderCompleted both default to
 * `type = "track"`: a purchase is sent twice), and a plain mapping text with `{{…}}`, which
 * mapping-kit sends literally (a template is `{"@template": "…"}`). Said, never refused: both can
 * be meant. Reads the catalogue manifest, so only the settings file's readers load it.
 */
import { CATALOGUE } from '../../schemas/catalogue.ts';
import type { Settings } from '../../schemas/settings.ts';
import { catalogEntry } from '../platforms/segment-action/catalog.ts';
import { runnablePresets } from '../platforms/segment-action/check.ts';
import { undelivered } from '../platforms/segment-action/deliverable.ts';
import { compileFql } from '../platforms/segment-action/fql.ts';
import { actionSteps } from '../platforms/segment-action/presets.ts';
import { segmentCallOf } from '../platforms/segment-action/subscription.ts';

/** Every catalogue event, and the identify, group and alias calls the runtime writes. */
const EVENTS: readonly string[] = [
  ...CATALOGUE.map((e) => e.name),
  'user_identified',
  'user_grouped',
  'user_aliased',
];

/** The warnings for every segment_action destination of the settings. */
export function catalogActionWarnings(settings: Readonly<Settings>): string[] {
  const out: string[] = [];
  (settings.destinations ?? []).forEach((d, i) => {
    if (d.type !== 'segment_action') return;
    const entry = catalogEntry(d.destination ?? '');
    if (!entry) return;
    const none = undelivered(entry.slug);
    // A client of its own is refused by the settings check already (check.ts), not warned of.
    if (none !== undefined && none.why !== 'own-transport')
      out.push(
        `destinations[${i}]: ${entry.slug} delivered none of a site's ordinary events in the project's own run of the catalogue (suggested setup, values from Segment's tests): it ${none.says}${none.example === undefined ? '' : ` (${none.example})`}; its ledger rows will say why unless these settings give what it needs (docs/catalog-destinations.md#deliverable)`,
      );
    if (d.actions === undefined) return;
    const unasked = d.actions.filter((a) => a.when === undefined);
    const steps = actionSteps(
      unasked,
      runnablePresets(entry),
      (key) => entry.actions.find((a) => a.key === key)?.defaultSubscription,
    );
    for (const name of EVENTS) {
      const call = segmentCallOf(name);
      const event = { type: call.type, ...(call.event === undefined ? {} : { event: call.event }) };
      const taking = [
        ...new Set(
          steps
            .filter((s) => s.subscribe !== undefined && compileFql(s.subscribe).takes(event))
            .map((s) => s.action),
        ),
      ];
      if (taking.length > 1)
        out.push(
          `destinations[${i}].actions: ${name} goes to ${taking.join(' and ')} of ${entry.slug} (each by its own subscription): one ${name} is sent ${taking.length} times; give all but one a when, unless that is meant`,
        );
    }
    d.actions.forEach((a, j) => {
      for (const [key, value] of Object.entries(a.mapping ?? {}))
        if (typeof value === 'string' && /\{\{[^}]+\}\}/.test(value))
          out.push(
            `destinations[${i}].actions[${j}].mapping.${key}: a plain text is sent as written, braces included; to fill {{…}} from the event write {"@template": ${JSON.stringify(value)}}`,
          );
    });
  });
  return out;
}
