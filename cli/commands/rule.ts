/**
 * `eventbus rule test <name> --event <file>` (rules, experimental; docs/rules.md): feeds events
 * through the rule's current version with the same evaluator `store` runs, and prints whether
 * each would fire and exactly what each action would send. Sends nothing. Events are read as a
 * producer posts them (one JSON object, an array, or NDJSON) and normalized as the gateway does;
 * once-per is applied across the file, in order, as the markers would.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { sliceQuery, storedEventFromRow } from '../../core/delivery/replay.ts';
import { normalizeEvent, normalizeOptions, type StoredEvent } from '../../core/event.ts';
import { onceClaims, sinceSummary } from '../../core/rules/rule-test.ts';
import {
  eventTrigger,
  mapFields,
  matchEventRules,
  publishedEvent,
  type RuleVersion,
  renderTemplate,
} from '../../core/rules/rules.ts';
import { durationMs } from '../../core/scheduler/cadence.ts';
import { TABLES } from '../../core/warehouse/warehouse.ts';
import type { RuleSpec } from '../../schemas/rule.ts';
import type { Settings } from '../../schemas/settings.ts';
import {
  DATA_DIR_OPTION,
  loadEnvironment,
  projectOf,
  readEnvironment,
  warehouseClient,
} from '../environment.ts';
import { CliError, writerOf } from '../output.ts';
import { registerHistory } from './history-table.ts';
import { studioCall } from './resources.ts';

/** The events of a file: a JSON object, a JSON array, or one JSON object per line. */
export function readEvents(text: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  try {
    const v: unknown = JSON.parse(trimmed);
    return Array.isArray(v) ? v : [v];
  } catch {
    return trimmed
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '')
      .map((l, i) => {
        try {
          return JSON.parse(l) as unknown;
        } catch {
          throw new CliError(`line ${i + 1} is not JSON`);
        }
      });
  }
}

/** What the rule would do with each event, as lines of text. Pure. */
export function ruleTestReport(
  rule: RuleVersion,
  events: readonly unknown[],
  settings: Readonly<Settings>,
): string[] {
  const options = normalizeOptions(settings);
  const claim = onceClaims();
  const lines: string[] = [];
  let fired = 0;
  events.forEach((raw, i) => {
    const n = normalizeEvent(raw, { options, now: Date.now(), newId: () => `test-${i + 1}` });
    if (!n.ok) {
      lines.push(
        `event ${i + 1}: invalid, not stored: ${n.violations.map((v) => `${v.field} ${v.description}`).join('; ')}`,
      );
      return;
    }
    const event = n.event as StoredEvent;
    const [firing] = matchEventRules([rule], event);
    const label = `event ${i + 1} (${event.event_name} ${event.event_id})`;
    if (!firing) {
      lines.push(`${label}: does not fire`);
      return;
    }
    if (rule.spec.once_per && !claim(firing)) {
      lines.push(
        `${label}: skipped: already fired for ${rule.spec.once_per.key} ${firing.key} in ${firing.slot}`,
      );
      return;
    }
    fired++;
    lines.push(
      `${label}: fires${firing.key !== null ? ` (${rule.spec.once_per?.key} ${firing.key}, ${firing.slot})` : ''}`,
    );
    rule.spec.actions.forEach((a, j) => {
      if ('chat' in a)
        lines.push(
          `  chat ${a.chat.connection}: ${JSON.stringify({ text: renderTemplate(a.chat.text, event) })}`,
        );
      else if ('webhook' in a)
        lines.push(
          `  webhook ${a.webhook.connection}: payload ${JSON.stringify(a.webhook.payload ? mapFields(a.webhook.payload, event) : event)}`,
        );
      else
        lines.push(
          `  publish ${a.publish.topic ?? 'events'}: ${JSON.stringify(publishedEvent(firing, j, a.publish).body)}`,
        );
    });
  });
  lines.push(
    `${fired} of ${events.length} event(s) would fire ${rule.name} ${rule.version}; nothing was sent`,
  );
  return lines;
}

const MAX_SINCE_EVENTS = 100_000;

export function register(program: Command): void {
  const rule = program.command('rule').description('Rules (experimental): test a rule, list its firings');
  rule
    .command('test')
    .description('Show whether events would fire a rule and what its actions would send (sends nothing)')
    .argument('<name>', 'the rule')
    .option('--event <file>', 'events as a producer posts them: a JSON object, an array, or NDJSON')
    .option('--since <duration>', 'stored events of the last 30m, 24h, 7d… (events_dedup) instead of a file')
    .option('--env <name>', 'settings (environments/<name>.yaml or a path)', 'local')
    .option(...DATA_DIR_OPTION)
    .action(
      async (
        name: string,
        o: { event?: string; since?: string; env: string; dataDir?: string },
        cmd: Command,
      ) => {
        if ((o.event === undefined) === (o.since === undefined))
          throw new CliError('give either --event <file> or --since <duration>');
        const doc = (await studioCall(o, 'GET', `/v1/admin/resources/Rule/${encodeURIComponent(name)}`)) as {
          name: string;
          version: string;
          spec: RuleSpec;
        };
        const version: RuleVersion = { name: doc.name, version: doc.version, spec: doc.spec };
        const out = writerOf(cmd);
        if (o.event !== undefined) {
          let text: string;
          try {
            text = readFileSync(o.event, 'utf8');
          } catch {
            throw new CliError(`cannot read ${o.event}`);
          }
          const { settings } = await readEnvironment(o.env);
          for (const line of ruleTestReport(version, readEvents(text), settings)) out(`${line}\n`);
          return;
        }
        const ms = durationMs(o.since ?? '');
        if (ms === undefined) throw new CliError('--since takes a duration such as 30m, 24h or 7d');
        const trigger = eventTrigger(version.spec);
        if (!trigger) throw new CliError(`${name} is a scheduled rule: --since tests event rules`);
        const { plan } = await loadEnvironment(o.env);
        const bigquery = await warehouseClient(plan, process.env, o.dataDir);
        const to = new Date();
        const from = new Date(to.getTime() - ms);
        const names = trigger.names;
        const [rows] = await bigquery.query({
          query: `${sliceQuery(projectOf(plan, process.env), plan.dataset, names ? 'event_name IN UNNEST(@names)' : undefined)} LIMIT ${MAX_SINCE_EVENTS + 1}`,
          params: { from, to, ...(names ? { names } : {}) },
          useLegacySql: false,
        });
        const events = (rows as Record<string, unknown>[]).slice(0, MAX_SINCE_EVENTS).map(storedEventFromRow);
        const s = sinceSummary(version, events);
        out(
          `${name} ${version.version} over ${s.events} stored event(s) since ${from.toISOString()}: would fire ${s.fired} time(s)${version.spec.once_per ? `, ${s.skippedOnce} skipped by once_per` : ''}; nothing was sent\n`,
        );
        if (rows.length > MAX_SINCE_EVENTS) out(`(only the first ${MAX_SINCE_EVENTS} events were read)\n`);
        for (const [key, n] of s.byKey.slice(0, 20)) out(`  ${key}\t${n}\n`);
      },
    );
  registerHistory(rule, {
    description: "List a rule's firings and their outcomes (action_runs), newest first",
    what: 'the rule',
    defaultLimit: 50,
    query: (plan) => `SELECT recorded_at, version, event_id, once_key, action, status, attempt, reason
FROM \`${plan.dataset}.${TABLES.actionRuns}\` WHERE rule = @name ORDER BY recorded_at DESC LIMIT @limit`,
  });
}
