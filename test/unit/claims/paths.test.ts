/**
 * Every path an event takes to a platform crosses the send-once claim (core/claims/send-once.ts).
 * The paths are listed here; a new one — a module that publishes `deliveries` messages, a caller of
 * a platform driver, a delivering function — fails this test until it is listed, with how it
 * crosses the claim. Read from the sources, so a bypass is found before anything runs.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** The repository root (not test/support/local-start.ts's: that module loads the supervisor). */
const REPO = resolve(import.meta.dirname, '../../..');

/** Production code: every folder but tests, benchmarks, docs and dependencies. */
const CODE = [
  'adapters',
  'cli',
  'core',
  'functions',
  'gateway',
  'infra',
  'local',
  'studio',
  'emulators',
  'scripts',
];

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'test') continue;
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}
const sources = new Map(
  CODE.flatMap((d) => tsFiles(join(REPO, d))).map((f) => [relative(REPO, f), readFileSync(f, 'utf8')]),
);
const using = (pattern: RegExp) =>
  [...sources]
    .filter(([, text]) => pattern.test(text))
    .map(([file]) => file)
    .sort();

/**
 * The ways a `deliveries` message is made, and so reaches `forward`, where the claim is taken: the
 * first fan-out (also a producer's copy and a crash's redelivery, which `store` fans out again),
 * a slice replay, a dead letter re-published (people's replays and the scheduler's re-drive).
 */
const DELIVERY_MESSAGE_MAKERS: Readonly<Record<string, string>> = {
  'core/delivery/message.ts': 'defines deliveryMessage and the attributes',
  'core/delivery/fan-out.ts': "store's fan-out: first sightings, copies, redeliveries",
  'core/delivery/slice-replay.ts': 'eventbus replay --from/--to, the console replays',
  'core/delivery/replay.ts': 'dead letters re-published: replay --dead-letters, automatic re-drive',
  'adapters/store-fan-out.ts':
    "the fan-out's messages with their decision span's context added, nothing else",
};
/** Readers of the delivery attributes that publish nothing. */
const ATTRIBUTE_READERS: Readonly<Record<string, string>> = {
  'core/delivery/forward.ts': 'the delivery core: takes the claim',
  'core/delivery/in-flight.ts': 'copies in one instance wait for the first',
  'core/delivery/dead-letter.ts': 'records dead letters, sends nothing',
  'adapters/deliveries-publisher.ts': "reads a message's destination for its topic, sends nothing",
  'functions/forward/handler.ts': 'logs',
  'gateway/envelope.ts': 'refuses producers that set them',
  'functions/forward/tracing.ts': "names the push's span, sends nothing",
};
/** Callers of a platform driver: only the delivery core sends; preview records and never sends. */
const DRIVER_USERS: Readonly<Record<string, string>> = {
  'core/delivery/forward.ts': 'sends, after the claim',
  'core/delivery/preview.ts': 'builds the requests a delivery would make, sends none',
  'core/platforms/drivers.ts': 'the table',
  'functions/forward/handler.ts': 'hands the drivers to the core',
  'functions/forward-catalog/handler.ts': "hands Segment's actions to the core",
};
/** The delivering functions: each loads the shared delivery services, which carry the claims. */
const DELIVERING_FUNCTIONS = ['functions/forward/index.ts', 'functions/forward-catalog/index.ts'];

describe('send once: every path to a platform crosses the claim', () => {
  it('lists every module that makes deliveries messages or reads their attributes', () => {
    assert.deepEqual(
      using(/\bdeliveryMessage\b|\bDELIVERY_ATTRIBUTES\b/),
      Object.keys({ ...DELIVERY_MESSAGE_MAKERS, ...ATTRIBUTE_READERS }).sort(),
      'a new path to forward: list it here with how it reaches the claim',
    );
  });

  it('lists every caller of a platform driver', () => {
    assert.deepEqual(using(/\bdriverFor\b|\bbuiltInDrivers\b/), Object.keys(DRIVER_USERS).sort());
  });

  it('in the delivery core, the call and a driver’s own requests happen only after the claim', () => {
    const core = sources.get('core/delivery/forward.ts') ?? '';
    const callers = (name: string) =>
      [
        ...core.matchAll(
          new RegExp(`^function (\\w+)[^\\n]*\\n(?:(?!^function )[\\s\\S])*?\\b${name}\\(call\\)`, 'gm'),
        ),
      ].map((m) => m[1]);
    assert.deepEqual(callers('send'), ['sendOnce'], 'send(call) is reached only through sendOnce');
    const passes = [...core.matchAll(/return (sendOnce|send)\(call\)/g)].map((m) => m[1]);
    // Without breaker and limiter, without a breaker, through a breaker that lets it go (closed,
    // or a catalogue action's delivery that is its own probe), and after the open breaker's
    // eventless probe was answered (probe.ts: the probe itself carries no event to claim).
    assert.equal(
      passes.filter((p) => p === 'sendOnce').length,
      4,
      'the breaker hands every call to sendOnce',
    );
    assert.match(
      core,
      /function send\(call: Call\)[\s\S]*?if \(call\.perform !== undefined\) return perform\(call/,
    );
    // One place sends a delivery's request; the only other call is the open breaker's probe,
    // a HEAD without the event (probe.ts), made before the claim and carrying nothing to claim.
    assert.equal((core.match(/\bd\.deps\.send\(/g) ?? []).length, 2, 'the sender is called twice');
    assert.equal(
      (core.match(/\bd\.deps\.send\(call\.request,/g) ?? []).length,
      1,
      'one place sends a delivery',
    );
    assert.equal((core.match(/\bd\.deps\.send\(probeRequest\(/g) ?? []).length, 1, 'one place sends a probe');
    assert.equal((core.match(/\brun\(d\.event/g) ?? []).length, 1, 'one place runs a driver’s own requests');
  });

  it('every delivering function loads the claims with its services', () => {
    for (const f of DELIVERING_FUNCTIONS) assert.match(sources.get(f) ?? '', /deliveryServices\(/, f);
    const services = sources.get('adapters/delivery-services.ts') ?? '';
    // Each claim call a span (adapters/delivery-tracing.ts), the store itself unchanged.
    assert.match(services, /claims: tracedClaims\(environmentClaims\(config\)\)/);
    assert.doesNotMatch(
      services,
      /\.query\(|createQueryJob|delivered-check/,
      'no warehouse query on the delivery path: the claim alone says whether a delivery happened',
    );
    assert.match(sources.get('functions/forward/handler.ts') ?? '', /claims: s\.claims/);
    assert.deepEqual(
      using(/\bcreateForwardHandler\(|\bcreateForwardCatalogHandler\(/).filter((f) => f.endsWith('index.ts')),
      [...DELIVERING_FUNCTIONS].sort(),
    );
  });
});
