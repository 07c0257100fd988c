/**
 * `eventbus rule test <name> --event <file>` (rules, experimental; docs/rules.md): feeds events
 * through the rule's current version with the same evaluator `store` runs, and prints whether
 * each would fire and exactly what each action would send. Sends nothing. Events are read as a
 * producer posts them (one JSON object, an array, or NDJSON) and normalized as the gateway does;
 * once-per is applied across the file, in order, as the markers would.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { normalizeEvent, normalizeOptions, type StoredEvent } from '../../core/event.ts';
import {
  mapFields,
  matchEventRules,
  onceMarkerPath,
  publishedEvent,
  type RuleVersion,
  renderTemplate,
} from '../../core/rules.ts';
import type { RuleSpec } from '../../schemas/rule.ts';
import type { Settings } from '../../schemas/settings.ts';
import { DATA_DIR_OPTION, readEnvironment } from '../environment.ts';
import { CliError, writerOf } from '../output.ts';
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
  const claimed = new Set<string>();
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
    if (rule.spec.once_per) {
      const marker = onceMarkerPath(firing);
      if (claimed.has(marker)) {
        lines.push(
          `${label}: skipped: already fired for ${rule.spec.once_per.key} ${firing.key} in ${firing.slot}`,
        );
        return;
      }
      claimed.add(marker);
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

export function register(program: Command): void {
  const rule = program.command('rule').description('Rules (experimental): test a rule against events');
  rule
    .command('test')
    .description('Show whether events would fire a rule and what its actions would send (sends nothing)')
    .argument('<name>', 'the rule')
    .requiredOption('--event <file>', 'events as a producer posts them: a JSON object, an array, or NDJSON')
    .option('--env <name>', 'settings (environments/<name>.yaml or a path)', 'local')
    .option(...DATA_DIR_OPTION)
    .action(async (name: string, o: { event: string; env: string; dataDir?: string }, cmd: Command) => {
      let text: string;
      try {
        text = readFileSync(o.event, 'utf8');
      } catch {
        throw new CliError(`cannot read ${o.event}`);
      }
      const doc = (await studioCall(o, 'GET', `/v1/admin/resources/Rule/${encodeURIComponent(name)}`)) as {
        name: string;
        version: string;
        spec: RuleSpec;
      };
      const { settings } = await readEnvironment(o.env);
      const out = writerOf(cmd);
      for (const line of ruleTestReport(
        { name: doc.name, version: doc.version, spec: doc.spec },
        readEvents(text),
        settings,
      ))
        out(`${line}\n`);
    });
}
