/**
 * Rules' actions (experimental, docs/rules.md): one push from `actions-schedule` is one firing.
 * The rule version that fired is read from the registry (immutable), the once-per marker is
 * claimed, then each action runs in order: a signed webhook, a chat message, an event published
 * back into the bus. Every outcome is a row of `action_runs`. A failed action answers non-2xx:
 * Pub/Sub retries the firing with backoff and dead-letters it after its budget, and the dead
 * letter is recorded too (from the dead-letter topic's own subscription).
 */
import { createHash } from 'node:crypto';
import { DEAD_LETTER_ATTRIBUTES } from '../../core/delivery/dead-letter.ts';
import type { InboundResponse, OutboundRequest } from '../../core/platforms/driver.ts';
import { publishTargetProblem } from '../../core/rules/publish-topic.ts';
import {
  type Firing,
  mapFields,
  onceMarkerPath,
  publishedEvent,
  type RuleVersion,
  renderTemplate,
} from '../../core/rules/rules.ts';
import type { RuleAction } from '../../schemas/rule.ts';
import type { Settings } from '../../schemas/settings.ts';
import { type PostResult, postJson } from './connections.ts';

export type ActionStatus = 'sent' | 'failed' | 'skipped_once' | 'dry_run' | 'dead_lettered';

/** One row of `action_runs`. */
export interface ActionRunRow {
  readonly rule: string;
  readonly version: string;
  readonly firing_id: string;
  readonly event_id: string;
  readonly once_key: string | null;
  readonly once_slot: string | null;
  readonly action: string;
  readonly status: ActionStatus;
  readonly reason: string | null;
  readonly attempt: number | null;
  readonly http_status: number | null;
  readonly recorded_at: string;
}

export interface ActionDeps {
  readonly settings: Readonly<Settings>;
  readonly readRule: (name: string, version: string) => Promise<RuleVersion>;
  /** Creates the marker if absent: `claimed`, or `ours` when it names this firing, else `taken`. */
  readonly claimOnce: (path: string, firingId: string) => Promise<'claimed' | 'ours' | 'taken'>;
  readonly secret: (name: string) => Promise<string | undefined>;
  readonly send: (request: OutboundRequest, timeoutMs: number) => Promise<InboundResponse>;
  readonly publish: (
    topic: string,
    body: Record<string, unknown>,
    attributes: Record<string, string>,
  ) => Promise<unknown>;
  readonly writeRuns: (rows: readonly { insertId: string; row: ActionRunRow }[]) => Promise<unknown>;
  readonly now?: () => Date;
}

export interface FiringOutcome {
  /** Whether the push is acknowledged (every action done, skipped or recorded for good). */
  readonly ack: boolean;
  readonly rows: readonly ActionRunRow[];
}

const actionName = (a: RuleAction): string =>
  'webhook' in a
    ? `webhook:${a.webhook.connection}`
    : 'chat' in a
      ? `chat:${a.chat.connection}`
      : `publish:${a.publish.event_name}`;

/** Reads a firing message's body; undefined when it is not one. */
export function parseFiring(data: Uint8Array): Firing | undefined {
  try {
    const f = JSON.parse(Buffer.from(data).toString('utf8')) as Partial<Firing>;
    if (
      typeof f.rule !== 'string' ||
      typeof f.version !== 'string' ||
      typeof f.firing_id !== 'string' ||
      typeof f.event?.event_id !== 'string'
    )
      return undefined;
    return f as Firing;
  } catch {
    return undefined;
  }
}

/** A row of a firing's outcome. */
function runRow(
  f: Firing,
  outcome: Pick<ActionRunRow, 'action' | 'status' | 'reason' | 'attempt' | 'http_status'>,
  now: Date,
): ActionRunRow {
  return {
    rule: f.rule,
    version: f.version,
    firing_id: f.firing_id,
    event_id: f.event.event_id,
    once_key: f.key,
    once_slot: f.slot,
    ...outcome,
    reason: outcome.reason === null ? null : outcome.reason.slice(0, 1024),
    recorded_at: now.toISOString(),
  };
}

/** Runs one firing's actions; rows are written before the answer either way. */
export async function runFiring(deps: ActionDeps, f: Firing, attempt: number): Promise<FiringOutcome> {
  const now = (deps.now ?? (() => new Date()))();
  const rows: { insertId: string; row: ActionRunRow }[] = [];
  const record = (action: string, status: ActionStatus, reason: string | null, http: number | null = null) =>
    rows.push({
      // A retried write of the same outcome keeps one row; each attempt of a failure has its own.
      insertId: `${f.firing_id}/${action}/${status}/${status === 'failed' ? attempt : 0}`,
      row: runRow(f, { action, status, reason, attempt, http_status: http }, now),
    });
  const rule = await deps.readRule(f.rule, f.version);
  let ack = true;
  const claim = rule.spec.once_per ? await deps.claimOnce(onceMarkerPath(f), f.firing_id) : 'claimed';
  if (claim === 'taken') {
    record('once_per', 'skipped_once', `already fired for ${rule.spec.once_per?.key} ${f.key} in ${f.slot}`);
  } else {
    for (const [i, action] of rule.spec.actions.entries()) {
      const name = actionName(action);
      if (rule.spec.dry_run) {
        record(name, 'dry_run', null);
        continue;
      }
      const result = await runAction(deps, f, i, action).catch((err: unknown) => ({
        ok: false as const,
        reason: (err as Error).message,
        http: null,
      }));
      if (result.ok) record(name, 'sent', null, result.http);
      else {
        record(name, 'failed', result.reason, result.http);
        ack = false;
        // The retry runs every action again: a published event folds by its deterministic id and
        // a webhook gets the same x-eventbus-firing-id; a chat message may repeat (docs/rules.md).
        break;
      }
    }
  }
  await deps.writeRuns(rows);
  return { ack, rows: rows.map((r) => r.row) };
}

async function runAction(
  deps: ActionDeps,
  f: Firing,
  index: number,
  action: RuleAction,
): Promise<PostResult> {
  if ('publish' in action) {
    // Refused at apply; a rule stored before that check must not feed the service's own topics.
    const topic = action.publish.topic ?? 'events';
    const internal = publishTargetProblem(topic);
    if (internal) return { ok: false, reason: internal, http: null };
    const { body, attributes } = publishedEvent(f, index, action.publish);
    await deps.publish(topic, body, attributes);
    return { ok: true, http: null };
  }
  const id = 'webhook' in action ? action.webhook.connection : action.chat.connection;
  const c = (deps.settings.connections ?? []).find((x) => x.id === id);
  if (!c) return { ok: false, reason: `connection ${id} is not in the settings`, http: null };
  const body =
    'webhook' in action
      ? JSON.stringify({
          rule: f.rule,
          version: f.version,
          firing_id: f.firing_id,
          event_id: f.event.event_id,
          event_name: f.event.event_name,
          ...(f.key !== null ? { once_key: f.key } : {}),
          payload: action.webhook.payload ? mapFields(action.webhook.payload, f.event) : f.event,
        })
      : JSON.stringify({ text: renderTemplate(action.chat.text, f.event) });
  return postJson(deps, c, body, { 'x-eventbus-firing-id': f.firing_id });
}

/** Whether a push came from the actions dead-letter topic's ledger subscription. */
export const isDeadLetterPush = (attributes: Readonly<Record<string, string>>): boolean =>
  attributes[DEAD_LETTER_ATTRIBUTES.subscription] !== undefined;

/** The `dead_lettered` row of a firing Pub/Sub gave up on. */
export function deadLetterRow(
  f: Firing,
  attributes: Readonly<Record<string, string>>,
  now: Date,
): { insertId: string; row: ActionRunRow } {
  const attempts = Number(attributes[DEAD_LETTER_ATTRIBUTES.count]) || null;
  return {
    insertId: `${f.firing_id}/dead_lettered/${createHash('sha256').update(JSON.stringify(attributes)).digest('hex').slice(0, 16)}`,
    row: runRow(
      f,
      {
        action: 'firing',
        status: 'dead_lettered',
        reason: `dead-lettered by Pub/Sub after ${attempts ?? '?'} delivery attempts; the failed rows say why`,
        attempt: attempts,
        http_status: null,
      },
      now,
    ),
  };
}
