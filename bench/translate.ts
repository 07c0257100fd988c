/**
 * Translator throughput (`npm run bench translate`): a generated 10 MB CSV export (quoted cells,
 * decimal commas, a date pattern in a time zone, a key) through what `POST /v1/translators/{name}`
 * does before it publishes — translate every row, then validate and build each event's message
 * exactly as the gateway does, against the event's definition — in rows/s and CPU µs per row.
 * Beside it, in the same run: the same rows as the JSON array a producer would send to
 * `/v1/topics` (parse, validate, build messages: the gateway's plain path), and papaparse reading
 * the CSV alone (the floor). In process, no HTTP and no Pub/Sub: both paths share those costs.
 */
import { definedEvent, definedEvents } from '../core/definitions/defined-events.ts';
import { normalizeOptions } from '../core/event.ts';
import { limitsOf } from '../core/json-limits.ts';
import { parseDelimited } from '../core/samples/csv.ts';
import { translate } from '../core/translate/index.ts';
import { type EnvelopeContext, eventMessage, parseTopicsForm } from '../gateway/envelope.ts';
import type { TranslatorSpec } from '../schemas/translator.ts';
import type { BenchFigure, BenchSuite } from './lib.ts';

// Just under the gateway's request limit (10,000,000 bytes), as one request of an export would be.
const TARGET_BYTES = 9_900_000;

const SPEC: TranslatorSpec = {
  event: 'quote_requested',
  format: { type: 'csv' },
  key: ['Order'],
  // 10 MB of short rows is more than the default 50,000; a translator may allow up to 200,000.
  max_rows: 200_000,
  fields: [
    {
      target: 'event_time',
      source: 'Date',
      transforms: [{ timestamp: 'DD.MM.YYYY HH:mm', zone: 'Europe/Berlin' }],
    },
    { target: 'amount', source: 'Amount', transforms: [{ decimal: ',' }] },
    { target: 'order_id', source: 'Order' },
    { target: 'user.email', source: 'E-Mail', transforms: ['trim', 'lowercase'] },
    { target: 'express', source: 'Express', transforms: ['boolean'] },
    { target: 'product', source: 'Product', transforms: ['trim'] },
  ],
};

const DEFINITION = definedEvent('quote_requested', '1.0', {
  fields: [
    { name: 'order_id', type: 'string', required: true },
    { name: 'amount', type: 'number', required: true, minimum: 0 },
    { name: 'product', type: 'string' },
    { name: 'express', type: 'boolean' },
  ],
});

/** A CSV export of `rows` rows. */
function csvFile(rows: number): string {
  const lines = ['Order,E-Mail,Amount,Date,Product,Express'];
  for (let i = 0; i < rows; i++) {
    const day = String((i % 28) + 1).padStart(2, '0');
    lines.push(
      `Q-${i},User${i}@Example.com ,"${(i % 9) + 1}.${String(i % 1000).padStart(3, '0')},${String(i % 100).padStart(2, '0')}",${day}.10.2026 ${String(i % 24).padStart(2, '0')}:15,"Roof tiles, ${i % 7}",${i % 2 ? 'ja' : 'nein'}`,
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

function cpu<T>(f: () => T): { value: T; cpuMs: number; wallMs: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  const value = f();
  const used = process.cpuUsage(c);
  return { value, cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - t };
}

export const suite: BenchSuite = {
  name: 'translate: a 10 MB CSV export through a translator, beside the same rows as JSON',
  async run({ quick }): Promise<BenchFigure[]> {
    // Size the file: measure one row, then fill 10 MB (a fiftieth in quick mode: that it works).
    const perRow = csvFile(1000).length / 1000;
    const rows = Math.min(200_000, Math.floor(TARGET_BYTES / perRow / (quick ? 50 : 1)));
    const text = csvFile(rows);
    const body = new TextEncoder().encode(text);
    const settings = { name: 'bench', project: 'bench', region: 'europe-west1' };
    const ctx: EnvelopeContext = {
      limits: { ...limitsOf({}), maxRequestBytes: 64 * 1024 * 1024, maxEventsPerRequest: 1_000_000 },
      options: normalizeOptions(settings),
      received: Date.parse('2026-10-30T00:00:00Z'),
      client: { ip: '127.0.0.1', userAgent: 'bench' },
      newId: () => 'minted',
      defined: definedEvents([DEFINITION]),
    };

    // Warm both paths once on a small file (JIT, compiled validators, pattern caches).
    const warm = new TextEncoder().encode(csvFile(2000));
    translate({
      translator: 'quotes-csv',
      spec: SPEC,
      eventName: SPEC.event,
      body: warm,
      contentType: 'text/csv',
    });

    const floor = cpu(
      () => parseDelimited(text, { delimiter: ',', quoteChar: '"', header: true }).rows.length,
    );

    const translated = cpu(() => {
      const r = translate({
        translator: 'quotes-csv',
        spec: SPEC,
        eventName: SPEC.event,
        body,
        contentType: 'text/csv',
      });
      if (!r.ok || r.problems.length > 0)
        throw new Error(
          `bench file did not translate: ${JSON.stringify(r.ok ? r.problems.slice(0, 3) : r.violations)}`,
        );
      let ok = 0;
      for (const row of r.rows) if (eventMessage(row.event, `rows[${row.row}]`, ctx).ok) ok++;
      if (ok !== rows) throw new Error(`${rows - ok} rows did not validate`);
      return r.rows.map((x) => x.event);
    });

    // The same events as the JSON array a producer would POST to /v1/topics.
    const json = JSON.stringify(translated.value);
    const plain = cpu(() => {
      const parsed = parseTopicsForm(JSON.parse(json), 'events', undefined, ctx);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.error.body).slice(0, 300));
      return parsed.value.messages.length;
    });

    const rate = (ms: number) => (rows / ms) * 1000;
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    return [
      {
        name: `translator: ${rows.toLocaleString('en-US')} CSV rows (${mb(body.length)}) translated and validated`,
        value: rate(translated.cpuMs),
        unit: 'rows/s (CPU)',
        baseline: {
          name: `the same rows as a JSON array (${mb(json.length)}) on /v1/topics`,
          value: rate(plain.cpuMs),
        },
        detail: `CPU per row: translator ${((translated.cpuMs * 1000) / rows).toFixed(1)} µs, JSON path ${((plain.cpuMs * 1000) / rows).toFixed(1)} µs; wall ${translated.wallMs.toFixed(0)} ms vs ${plain.wallMs.toFixed(0)} ms`,
      },
      {
        name: 'translator, beside papaparse reading the CSV alone',
        value: rate(translated.cpuMs),
        unit: 'rows/s (CPU)',
        baseline: { name: 'papaparse alone', value: rate(floor.cpuMs) },
      },
    ];
  },
};
