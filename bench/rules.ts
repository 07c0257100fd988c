/**
 * Rules' cost on the storage path (`npm run bench rules`): the CPU `store` spends per event on
 * its own work — decoding and validating the message into a row, then the decision layer's
 * fan-out over four destinations — measured alone (baseline) and with 20 event rules matched
 * after it (the rules' added work). In process, no I/O: the I/O of a push (HTTP, BigQuery,
 * Pub/Sub) only adds to the baseline, so the ratio printed here is an upper bound of the
 * rules' share. Aim: < 1.10×.
 */
import { planFanOut } from '../core/delivery/fan-out.ts';
import type { StoredEvent } from '../core/event.ts';
import { plan } from '../core/plan.ts';
import { candidates, indexRules, matchEventRules, type RuleVersion } from '../core/rules/rules.ts';
import type { PubSubMessage } from '../core/store/message.ts';
import { messageRows, storeConfig } from '../core/store/store.ts';
import type { RuleSpec } from '../schemas/rule.ts';
import type { Settings } from '../schemas/settings.ts';
import type { BenchFigure, BenchSuite } from './lib.ts';

const SETTINGS: Settings = {
  name: 'benchrules',
  project: 'bench-rules',
  region: 'europe-west1',
  experimental: { rules: true },
  destinations: [
    { id: 'hook', type: 'webhook', base_url: 'http://127.0.0.1:1', secrets: { signing_key: 'K' } },
    { id: 'meta', type: 'meta_capi', config: { pixel_id: '1' }, secrets: { access_token: 'T' } },
    { id: 'ga4', type: 'ga4_mp', config: { measurement_id: 'G-1' }, secrets: { api_secret: 'S' } },
    { id: 'tiktok', type: 'tiktok_events', config: { pixel_code: 'C' }, secrets: { access_token: 'T' } },
  ],
};

/**
 * Twenty rules as a shop would write them: names, thresholds, lists, patterns, nesting.
 * `threshold(i)` sets how selective rule i is.
 */
function rules(threshold: (i: number) => number): RuleVersion[] {
  const out: RuleVersion[] = [];
  for (let i = 0; i < 20; i++) {
    const spec: RuleSpec = {
      trigger: {
        event: {
          names: [['purchase', 'add_to_cart', 'view_content', 'sign_up'][i % 4] as string],
          all: [{ field: 'value', op: 'gt', value: threshold(i) }],
          any: [
            { field: 'currency', op: 'in', value: ['EUR', 'CHF', 'GBP'] },
            { field: 'page.url', op: 'matches', value: `/(checkout|cart)/step-${i}` },
            {
              all: [
                { field: 'user.country', op: 'eq', value: 'de' },
                { field: 'value', op: 'between', value: [0, 10000] },
              ],
            },
          ],
        },
      },
      once_per: { key: 'user_id', period: '1d' },
      actions: [{ publish: { event_name: `rule_${i}_hit` } }],
    };
    out.push({ name: `rule-${i}`, version: '1.0', spec });
  }
  return out;
}

function messages(n: number): PubSubMessage[] {
  const names = ['purchase', 'add_to_cart', 'view_content', 'search'];
  return Array.from({ length: n }, (_, i) => {
    const name = names[i % names.length] as string;
    const body: Record<string, unknown> = {
      event_name: name,
      event_id: `e-${i}`,
      user_id: `u-${i % 500}`,
      value: (i * 37) % 1200,
      currency: i % 3 === 0 ? 'USD' : 'EUR',
      user: { email: `p${i}@example.com`, country: i % 2 ? 'de' : 'fr' },
      page: { url: `https://shop.example/checkout/step-${i % 25}` },
      consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
    };
    if (name === 'purchase') Object.assign(body, { transaction_id: `T${i}` });
    if (name === 'add_to_cart' || name === 'view_content')
      Object.assign(body, { content_type: 'product', content_id: `SKU${i % 90}`, content_name: 'Shoe' });
    if (name === 'search') Object.assign(body, { search_term: 'shoe' });
    return {
      messageId: `m-${i}`,
      publishTime: new Date().toISOString(),
      attributes: {},
      data: Buffer.from(JSON.stringify(body)),
      subscription: 'events-store',
      deliveryAttempt: 1,
    };
  });
}

function cpuMs(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export const suite: BenchSuite = {
  name: 'rules: added CPU per event in store with 20 event rules',
  async run({ quick }): Promise<BenchFigure[]> {
    const config = storeConfig(SETTINGS, plan(SETTINGS));
    const msgs = messages(quick ? 2_000 : 20_000);
    const runs = quick ? 3 : 7;
    const now = new Date();
    const storeWork = (): StoredEvent[] => {
      const events: StoredEvent[] = [];
      for (const m of msgs) {
        const r = messageRows(m, config, now.getTime());
        if (r.kind === 'event') events.push(r.event);
      }
      planFanOut(SETTINGS, events, now);
      return events;
    };
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const perEvent = (ms: number) => (ms * 1000) / msgs.length;
    const measure = (label: string, threshold: (i: number) => number): BenchFigure => {
      const rs = indexRules(rules(threshold));
      let fired = 0;
      const withRules = () => {
        fired = 0;
        const events = storeWork();
        for (const e of events) fired += matchEventRules(candidates(rs, e.event_name), e).length;
      };
      // Warm both paths, then alternate runs so drift on a shared machine hits both alike.
      for (let i = 0; i < 3; i++) {
        storeWork();
        withRules();
      }
      const base: number[] = [];
      const rulesRuns: number[] = [];
      for (let i = 0; i < runs; i++) {
        base.push(cpuMs(storeWork));
        rulesRuns.push(cpuMs(withRules));
      }
      return {
        name: `store CPU per event with 20 event rules, ${label}`,
        value: perEvent(median(rulesRuns)),
        unit: 'µs',
        baseline: {
          name: 'without rules (decode, validate, row, fan-out to 4 destinations)',
          value: perEvent(median(base)),
        },
        target: { op: '<=', value: 1.1, of: 'ratio' },
        detail: `${msgs.length} events per run, median of ${runs} runs; ${((fired / msgs.length) * 100).toFixed(1)} firings per 100 events`,
      };
    };
    return [
      // Alerts fire on the few events that matter (orders over a threshold).
      measure('selective (thresholds 1,000–1,190)', (i) => 1000 + i * 10),
      // The worst case: nearly every event the rules look at fires one (a once-per id and slot each).
      measure('nearly every event fires', (i) => 100 + i * 50),
    ];
  },
};
