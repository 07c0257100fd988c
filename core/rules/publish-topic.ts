/**
 * Where a rule's `publish` action and a sync's topic destination may publish (docs/rules.md,
 * docs/syncs.md): a topic of this environment, named by its Pub/Sub topic id, that is not one of
 * the service's own (core/references/reserved-names.ts). A full resource name
 * (`projects/<p>/topics/<t>`) is refused whatever it names: the environment's internal topics
 * under another spelling, or another project's topics, which a rule or sync has no business
 * feeding. Pure.
 */
import { publishTopicProblem } from '../references/reserved-names.ts';

/** Pub/Sub's topic id: a letter, then letters, digits and `-_.~+%`, 3 to 255 in all, not `goog…`. */
const TOPIC_ID = /^(?!goog)[A-Za-z][A-Za-z0-9._~+%-]{2,254}$/;
/** A topic's full resource name, with or without the service's prefix. */
const FULL_NAME = /^(?:\/\/pubsub\.googleapis\.com\/)?projects\/([^/]*)\/topics\/([^/]*)$/;

/** Why a rule or sync may not publish to `topic`, or undefined. */
export function publishTargetProblem(topic: string): string | undefined {
  const full = FULL_NAME.exec(topic);
  if (full) {
    const id = full[2] ?? '';
    return publishTopicProblem(id)
      ? `"${topic}" is the full name of an internal topic of the environment (${id}): publish to events or a topic of the settings' topics, by its id`
      : `"${topic}" is a full topic name: name a topic of this environment by its id (${id}); topics of other projects are not published to`;
  }
  if (!TOPIC_ID.test(topic))
    return `"${topic}" is not a topic id: a letter, then 2 to 254 letters, digits or - _ . ~ + %, not starting with goog`;
  return publishTopicProblem(topic);
}
