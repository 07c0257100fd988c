/**
 * `npm run bench enrich`: the CPU the enrichment step adds to the store path, per event
 * (docs/enrichment.md, "Cost"). In-process and pure: `messageRows` over the same push messages
 * with and without the enricher, alternating rounds in one run, so the difference is the step's
 * cost on this machine today. The messages mix landing URLs with click ids, search and social
 * referrers and 200 distinct real user agents (a site's traffic repeats its user agents); a
 * second figure gives every event a user agent never seen before (the parser's cold cost).
 * A gate: the run fails when the step costs more than 30 µs per event.
 */
import { readFileSync } from 'node:fs';
import { countryDatabasePath, countryLookup, loadReferrerList } from '../adapters/enrichment.ts';
import { createEnricher, type Enricher, referrerTable } from '../core/enrich/index.ts';
import { plan } from '../core/plan.ts';
import type { PubSubMessage } from '../core/store/message.ts';
import { messageRows, type StoreConfig, storeConfig } from '../core/store/store.ts';
import type { Settings } from '../schemas/settings.ts';
import type { BenchFigure, BenchSuite } from './lib.ts';

const EVENTS = Number(process.env['BENCH_ENRICH_EVENTS'] ?? 5000);
const ROUNDS = Number(process.env['BENCH_ENRICH_ROUNDS'] ?? 7);
const BUDGET_US = 30;

const SETTINGS: Settings = {
  name: 'benchenrich',
  project: 'bench-enrich',
  region: 'europe-west1',
  enrichment: { geo: 'country' },
};

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_{v} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.{v} Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.{v} Safari/605.1.15',
  'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:{v}.0) Gecko/20100101 Firefox/{v}.0',
];
const REFERRERS = [
  '',
  'https://www.google.com/',
  'https://l.facebook.com/l.php?u=x',
  'https://www.bing.com/search?q=shoes',
  'https://t.co/abc',
  'https://blog.example.org/post',
];
const QUERIES = [
  '',
  '?utm_source=google&utm_medium=cpc&utm_campaign=boots&gclid=Cj0KCQiA',
  '?fbclid=IwAR2F4-dbP0l7Mn1IawQQ',
  '?utm_source=newsletter&utm_medium=email',
  '?msclkid=abc123&utm_source=bing',
];

const userAgent = (i: number, distinct: number) => {
  const n = i % distinct;
  return (BROWSERS[n % BROWSERS.length] as string).replaceAll(
    '{v}',
    String(100 + Math.floor(n / BROWSERS.length)),
  );
};

function messages(distinctAgents: number): PubSubMessage[] {
  return Array.from({ length: EVENTS }, (_, i) => ({
    messageId: `m-${i}`,
    publishTime: '2026-11-02T09:30:00.000Z',
    attributes: {},
    subscription: 'projects/bench-enrich/subscriptions/events-store',
    deliveryAttempt: 1,
    data: Buffer.from(
      JSON.stringify({
        event_name: 'page_view',
        event_id: `e-${i}`,
        event_time: '2026-11-02T09:29:59.000Z',
        anonymous_id: `a-${i % 997}`,
        page: {
          url: `https://shop.example/p/${i % 50}${QUERIES[i % QUERIES.length]}`,
          ...(REFERRERS[i % REFERRERS.length] ? { referrer: REFERRERS[i % REFERRERS.length] } : {}),
        },
        device: {
          ip: `${(i % 200) + 20}.${i % 251}.${(i * 7) % 253}.${i % 250}`,
          user_agent: userAgent(i, distinctAgents),
        },
      }),
    ),
  }));
}

/** CPU µs per message of messageRows over every message. */
function cpuPerEvent(batch: readonly PubSubMessage[], config: StoreConfig): number {
  const start = process.cpuUsage();
  for (const m of batch) messageRows(m, config, 0);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / batch.length;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Median over alternating rounds of the store path with and without the enricher. */
function compare(batch: readonly PubSubMessage[], plain: StoreConfig, enriched: StoreConfig) {
  cpuPerEvent(batch, plain);
  cpuPerEvent(batch, enriched); // warm both paths (JIT) before measuring
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(cpuPerEvent(batch, plain));
    b.push(cpuPerEvent(batch, enriched));
  }
  return { plain: median(a), enriched: median(b) };
}

export const suite: BenchSuite = {
  name: 'enrichment step (CPU per event, in-process)',
  async run(): Promise<BenchFigure[]> {
    const base = storeConfig(SETTINGS, plan(SETTINGS));
    const startLoad = process.cpuUsage();
    const enrich = createEnricher(SETTINGS, {
      referrers: referrerTable(loadReferrerList()),
      geo: countryLookup(readFileSync(countryDatabasePath())),
    }) as Enricher;
    const load = process.cpuUsage(startLoad);
    const withEnrich: StoreConfig = { ...base, enrich };
    const repeated = compare(messages(200), base, withEnrich);
    const cold = compare(messages(EVENTS * 1000), base, withEnrich);
    const cost = repeated.enriched - repeated.plain;
    return [
      {
        name: 'store path with enrichment (200 distinct user agents)',
        value: repeated.enriched,
        unit: 'µs CPU/event',
        baseline: { name: 'without enrichment', value: repeated.plain },
        detail: `enrichment adds ${cost.toFixed(1)} µs/event (gate ≤ ${BUDGET_US}); data loaded at cold start in ${((load.user + load.system) / 1000).toFixed(0)} ms CPU`,
        target: { op: '<=', value: repeated.plain + BUDGET_US, hard: true },
      },
      {
        name: 'store path with enrichment (every user agent new)',
        value: cold.enriched,
        unit: 'µs CPU/event',
        baseline: { name: 'without enrichment', value: cold.plain },
        detail: `enrichment adds ${(cold.enriched - cold.plain).toFixed(1)} µs/event when no user agent repeats (no gate: traffic repeats them)`,
      },
    ];
  },
};
