/**
 * Names a runtime resource may not take and topics it may not publish to (docs/security.md): the
 * warehouse's own tables and views, the topics only the service publishes to, dead-letter topics,
 * and the `<name>_v<N>` views of definitions' older majors. Every list is read off plan() (and
 * its warehouse plan), so what the environment creates is what is reserved. Pure.
 */
import { lookupEvent } from '../../schemas/catalogue.ts';
import type { RegistryKind } from '../../schemas/resource.ts';
import { builtInNames } from '../plan.ts';
import { definitionViewName } from '../warehouse/warehouse.ts';

/** `_v`, from the view name of major 1 of a definition named `x` (`x_v1`). */
const MAJOR_INFIX = definitionViewName('x', 1, false).slice(1, -1);
const OLDER_MAJOR_VIEW = new RegExp(`^.+${MAJOR_INFIX}[0-9]+$`);

export interface ReservedLists {
  /** Tables and views of the events and ops datasets (with one view per catalogue event). */
  readonly warehouse: ReadonlySet<string>;
  readonly internalTopics: ReadonlySet<string>;
  /** Every dead-letter topic's name ends with it. */
  readonly deadLetterSuffix: string;
  /** Every destination's deliveries topic's name starts with it. */
  readonly deliveriesPrefix: string;
}

let lists: ReservedLists | undefined;

/**
 * The reserved lists (docs/security.md is checked against them), worked out on first use: plan()
 * is not run when a cold start never checks a name.
 */
export function reserved(): ReservedLists {
  if (!lists) {
    const names = builtInNames();
    lists = Object.freeze({
      warehouse: new Set(names.warehouse),
      internalTopics: new Set(names.internalTopics),
      deadLetterSuffix: names.deadLetterSuffix,
      deliveriesPrefix: names.deliveriesPrefix,
    });
  }
  return lists;
}

const isInternalTopic = (name: string): boolean => {
  const r = reserved();
  return (
    r.internalTopics.has(name) || name.endsWith(r.deadLetterSuffix) || name.startsWith(r.deliveriesPrefix)
  );
};

/**
 * Why a resource of `kind` may not be called `name`, or undefined. Every kind avoids the
 * warehouse's tables and views and the internal topics, so a name never means two things in
 * SQL, logs or the console; a definition's name also becomes a view, so it cannot end in
 * `_v<N>` (an older major's view of another definition). A catalogue event's view is only
 * reserved for definitions (where the catalogue check refuses it first): a Query named
 * `purchase` collides with nothing.
 */
export function reservedNameProblem(kind: RegistryKind, name: string): string | undefined {
  if (reserved().warehouse.has(name) && (kind === 'EventDefinition' || !lookupEvent(name)))
    return `"${name}" is reserved: the warehouse's own table or view \`${name}\` has that name`;
  if (isInternalTopic(name))
    return `"${name}" is reserved: the environment's internal topic ${name} has that name`;
  if (kind === 'EventDefinition' && OLDER_MAJOR_VIEW.test(name))
    return `"${name}" is reserved: names ending in ${MAJOR_INFIX}<N> are the views of a definition's older major versions`;
  return undefined;
}

/**
 * Why a rule or sync may not publish to `topic`, or undefined: the service's own topics carry
 * messages only it writes (a firing, a run, a delivery) and drop or misread anything else, and a
 * dead-letter topic is where failures end, not an input.
 */
export function publishTopicProblem(topic: string): string | undefined {
  if (isInternalTopic(topic))
    return `"${topic}" is an internal topic of the environment: publish to events or a topic of the settings' topics`;
  return undefined;
}
