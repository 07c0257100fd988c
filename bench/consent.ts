/**
 * `npm run bench consent`: what reading an event's consent strings costs (core/consent/,
 * docs/delivery.md "Consent"). In-process and pure. A gate: the costliest TC string the event
 * schema allows (16,384 characters of vendor ranges over 1..65535, test/support/tc-strings.ts)
 * decodes in at most 5 ms. Beside it, the same decoder against IAB Tech Lab's `@iabtcf/core` in
 * the same run: on an everyday string, and on a 1,500-character string of wide ranges, which the
 * library expands into ids (on the costliest string it took 13.8 s, so it is not run there).
 * Another gate: a 16 KB GPP string whose usnat section fills it is read (as malformed) within
 * the same 5 ms (it took 11.7 ms when the library decoded it whole).
 * Then the resolver (core/consent/resolve.ts): the CPU the decision layer's consent step costs per
 * event for four destinations, over a mix of Consent Mode (with region defaults), TCF, GPC, GPP
 * and US Privacy events, against the decision layer as it was before the resolver
 * (bench/consent-baseline.ts) on the same events in the same run, rounds interleaved. A gate: at
 * most 1.2× the baseline.
 */
import { GppModel } from '@iabgpp/cmpapi';
import { TCString } from '@iabtcf/core';
import { decodeTcf, TCF_MAX_LENGTH } from '../core/consent/tcf.ts';
import { GPP_MAX_LENGTH, readGpp } from '../core/consent/us-privacy.ts';
import { consentRefusal } from '../core/decision/consent.ts';
import { requiredConsent } from '../core/decision/decision.ts';
import type { StoredEvent } from '../core/event.ts';
import type { Destination } from '../schemas/settings.ts';
import { tcString, worstTcString } from '../test/support/tc-strings.ts';
import { baselineConsentRefusal } from './consent-baseline.ts';
import type { BenchFigure, BenchOptions, BenchSuite } from './lib.ts';

const WORST_BUDGET_MS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Median wall time of one call in ms, over `rounds` rounds of `calls` calls, after a warm-up round. */
function timed(fn: () => unknown, rounds: number, calls: number): number {
  for (let i = 0; i < calls; i++) fn();
  const perCall: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) fn();
    perCall.push((performance.now() - start) / calls);
  }
  return median(perCall);
}

/** The decoder's answer, checked, so that a bench of a broken decoder fails instead of measuring it. */
function decodeChecked(s: string): void {
  const r = decodeTcf(s);
  if (!r.ok || !r.purpose(1) || !r.vendor(755))
    throw new Error(`the bench string did not decode: ${s.slice(0, 40)}`);
}

/**
 * GPP strings of the schema's longest (16,384 characters) whose one section is usnat: base64
 * of the section's own length, each different (the reader keeps its readings, so no call is a
 * cache hit). Each must read as malformed, or the bench fails rather than measure a decoder
 * that takes them.
 */
function longUsnatStrings(count: number): string[] {
  const header = 'DBABLA';
  return Array.from({ length: count }, (_, i) => {
    const tail = i.toString(36);
    return `${header}~${'Qk'.repeat(GPP_MAX_LENGTH).slice(0, GPP_MAX_LENGTH - header.length - 1 - tail.length)}${tail}`;
  });
}

function gppChecked(s: string): void {
  if (readGpp(s, undefined).ok) throw new Error('a 16 KB usnat section read as well-formed');
}

/** Events of every kind of signal, each a new object (as the store parses them). */
function mixedEvents(count: number): StoredEvent[] {
  const gpp = new GppModel();
  gpp.setFieldValue('usnat', 'SaleOptOutNotice', 1);
  gpp.setFieldValue('usnat', 'SaleOptOut', 1);
  const granted = { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' } as const;
  const kinds: StoredEvent['consent'][] = [
    granted,
    { tcf: tcString({ purposes: [1, 2, 3, 4, 7], vendors: [755, 1126] }) },
    { ...granted, gpc: true },
    { ...granted, gpp: gpp.encode(), gpp_sid: '7' },
    { ...granted, us_privacy: '1YNN' },
    { ad_storage: 'granted', analytics_storage: 'denied', ad_user_data: 'granted' },
    {
      ...granted,
      ad_storage: 'granted',
      region_defaults: [{ region: ['ES', 'FR', 'US-CA'], ad_storage: 'denied', ad_user_data: 'denied' }],
    },
    undefined,
  ];
  return Array.from({ length: count }, (_, i) => {
    const consent = kinds[i % kinds.length];
    return {
      event_name: 'view_content',
      event_id: `e-${i}`,
      event_time: '2026-11-25T10:00:00.000Z',
      anonymous_id: '1.2',
      ...(consent ? { consent } : {}),
      enriched: { geo: { country: i % 2 === 0 ? 'ES' : 'DE' } },
      event_data: {},
    };
  });
}

const DESTINATIONS: readonly Destination[] = [
  { id: 'ga4', type: 'ga4_mp' },
  { id: 'meta', type: 'meta_capi' },
  { id: 'tiktok', type: 'tiktok_events' },
  { id: 'ms', type: 'microsoft_uet' },
];

type Refusal = typeof consentRefusal;

/** CPU µs per event of one consent rule for every destination, over these events. */
function cpuPerEvent(rule: Refusal, events: readonly StoredEvent[]): number {
  const start = process.cpuUsage();
  for (const e of events) for (const d of DESTINATIONS) rule(d, e, requiredConsent(d), true);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / events.length;
}

/**
 * Median CPU µs per event of the resolver's consent step and of the old one, fresh events each
 * round (each rule its own copy), the two interleaved and their order alternated.
 */
function resolverCpu(rounds: number, count: number): { resolver: number; baseline: number } {
  const resolver: number[] = [];
  const baseline: number[] = [];
  for (let r = 0; r <= rounds; r++) {
    const ours = mixedEvents(count);
    const theirs = mixedEvents(count);
    const first = r % 2 === 0;
    const b1 = first ? cpuPerEvent(baselineConsentRefusal, theirs) : 0;
    const a = cpuPerEvent(consentRefusal, ours);
    const b2 = first ? 0 : cpuPerEvent(baselineConsentRefusal, theirs);
    // The first round warms the code up.
    if (r === 0) continue;
    resolver.push(a);
    baseline.push(b1 + b2);
  }
  return { resolver: median(resolver), baseline: median(baseline) };
}

export const suite: BenchSuite = {
  name: 'consent strings (decode, in-process)',
  async run({ quick }: BenchOptions): Promise<BenchFigure[]> {
    const rounds = quick ? 3 : 9;
    const worst = worstTcString(TCF_MAX_LENGTH);
    const everyday = tcString({ purposes: [1, 2, 3, 4, 7], vendors: [32, 755, 1126] });
    const wide = worstTcString(1500);
    const worstMs = timed(() => decodeChecked(worst), rounds, quick ? 5 : 50);
    const unseen = worstTcString(TCF_MAX_LENGTH, 11);
    const firstStart = performance.now();
    decodeChecked(unseen);
    const first = performance.now() - firstStart;
    const oursEveryday = timed(() => decodeChecked(everyday), rounds, quick ? 100 : 5000) * 1000;
    const theirsEveryday = timed(() => TCString.decode(everyday), rounds, quick ? 100 : 2000) * 1000;
    const oursWide = timed(() => decodeChecked(wide), rounds, quick ? 5 : 50);
    const usnat = longUsnatStrings((rounds + 1) * (quick ? 20 : 200));
    let next = 0;
    const gppMs = timed(() => gppChecked(usnat[next++ % usnat.length] as string), rounds, quick ? 20 : 200);
    const theirsWide = timed(() => TCString.decode(wide), quick ? 1 : 3, 1);
    // More rounds than the decoders: two rules on a shared machine, compared as a ratio.
    const resolver = resolverCpu(rounds * 2 + 1, quick ? 700 : 7000);
    return [
      {
        name: `the costliest TC string the schema allows (${worst.length} characters of ranges over 1..65535)`,
        value: worstMs,
        unit: 'ms',
        detail: `median of ${rounds} rounds; a string never seen before (no warm cache of its own): ${first.toFixed(2)} ms`,
        target: { op: '<=', value: WORST_BUDGET_MS, hard: true },
      },
      {
        name: `a GPP string of ${GPP_MAX_LENGTH} characters whose usnat section fills it (read as malformed)`,
        value: gppMs,
        unit: 'ms',
        detail: `median of ${rounds} rounds, every string new to the reader's cache`,
        target: { op: '<=', value: WORST_BUDGET_MS, hard: true },
      },
      {
        name: 'an everyday TC string (5 purposes, 3 vendors, disclosed vendors)',
        value: oursEveryday,
        unit: 'µs',
        baseline: { name: '@iabtcf/core TCString.decode', value: theirsEveryday },
      },
      {
        name: `a ${wide.length}-character TC string of ranges over 1..65535`,
        value: oursWide,
        unit: 'ms',
        baseline: { name: '@iabtcf/core TCString.decode (expands every range)', value: theirsWide },
      },
      {
        name: 'the consent resolver at the decision layer, 4 destinations per event (8 kinds of signal)',
        value: resolver.resolver,
        unit: 'µs CPU/event',
        baseline: {
          name: 'the decision layer before the resolver (bench/consent-baseline.ts)',
          value: resolver.baseline,
        },
        target: { op: '<=', value: 1.2, of: 'ratio', hard: true },
        detail:
          'fresh events each round, the two interleaved; the strings themselves are decoded once per process (readers keep them)',
      },
    ];
  },
};
