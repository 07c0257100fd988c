/**
 * The conformance run's CI tier (issue #95): every passing case of the committed run
 * (docs/data/segment-conformance.json), replayed from its generated data
 * (test/fixtures/segment-conformance/replay.jsonl: inputs, the answers the test's mocks gave, the
 * requests Segment's own code sent; no Segment test code) through our runtime behind the egress
 * gate's fetch, without the network or a checkout. Each must send what Segment's code sent.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freshRuntime, readReplay, replayCase } from '../../../scripts/conformance-segment/replay.ts';
import type { ConformanceReport } from '../../../scripts/conformance-segment/table.ts';

const REPORT = JSON.parse(
  readFileSync(new URL('../../../docs/data/segment-conformance.json', import.meta.url), 'utf8'),
) as ConformanceReport;
const DATA = readReplay(
  fileURLToPath(new URL('../../../test/fixtures/segment-conformance/replay.jsonl', import.meta.url)),
);

describe('segment_action: the conformance tier replayed through our runtime (no network)', function () {
  this.timeout(120_000);

  it('was generated from the pinned package, by the run the committed results come from', () => {
    assert.equal(DATA.version, REPORT.version);
    assert.match(DATA.commit, /^[0-9a-f]{40}$/);
    // Every passing case of the committed run has its data, and nothing else does.
    for (const d of REPORT.destinations) {
      const names = new Set((DATA.destinations[d.slug] ?? []).map((c) => c.name));
      // A name several cases share (`#2`…) is one name in the data.
      const passed = new Set(d.passed.map((id) => id.replace(/ #\d+$/, '')));
      assert.deepEqual([...names].sort(), [...passed].sort(), d.slug);
    }
  });

  it('sends, for every case, the requests Segment’s own code sends', async () => {
    const differs: string[] = [];
    const verified: string[] = [];
    let cases = 0;
    let loads = 0;
    const notReplayed = new Set<string>();
    for (const [slug, replays] of Object.entries(DATA.destinations)) {
      const bad = new Set<string>();
      let file: string | undefined;
      let run: Awaited<ReturnType<typeof freshRuntime>> | undefined;
      for (const [i, c] of replays.entries()) {
        if ('notReplayed' in c) {
          notReplayed.add(`${slug}: ${c.name}`);
          continue;
        }
        // Each test file's cases with modules of their own, as in the run.
        const fileOf = c.name.slice(0, c.name.indexOf(' › '));
        if (fileOf !== file || !run) {
          file = fileOf;
          run = await freshRuntime(loads++);
        }
        const diff = await replayCase(
          { ...c, destination: { ...c.destination, id: `conformance-${i}` } },
          run,
        );
        if (diff !== undefined) {
          bad.add(c.name);
          differs.push(`${slug}: ${c.name}: ${diff}`);
        }
      }
      const names = new Set(replays.map((c) => c.name));
      cases += names.size;
      if (bad.size === 0) verified.push(slug);
    }
    const t = REPORT.totals;
    console.log(
      `      ${verified.length} destinations replayed on the wire (${cases - notReplayed.size} cases; ${notReplayed.size} not, their tests mock modules or the clock); the committed run: ` +
        `${t.destinationsVerified} verified, assertions ${t.assertions} and wire ${t.wire} of ${t.runnable} runnable cases`,
    );
    assert.deepEqual(differs, []);
  });
});
