/**
 * Where the gateway's CPU per single-event POST goes (issue 97): its own steps timed in the bench's
 * process on the bench's event, and the machine's CPU per request that 0.5x the bare server's rate
 * leaves on these cores. bench/gateway.ts prints both beside the gateway process's CPU (/proc), so
 * docs/bench.md says, from one run, which share of a POST is the product's steps and which is
 * node's HTTP server, sockets and the Publish call around them.
 */
import type { IncomingMessage } from 'node:http';
import { encodePublishRequest } from '../adapters/publish-wire.ts';
import { normalizeOptions } from '../core/event.ts';
import { limitsOf } from '../core/json-limits.ts';
import { isPending } from '../core/maybe-async.ts';
import { authenticate, startCredentialCache } from '../gateway/auth.ts';
import { decodeJson } from '../gateway/body.ts';
import { parseTopicsForm } from '../gateway/envelope.ts';
import { uuidv7 } from '../gateway/ids.ts';
import type { TokenStore } from '../gateway/token-store.ts';
import type { Settings } from '../schemas/settings.ts';
import type { BenchFigure } from './lib.ts';

/** µs per call of each of the gateway's own steps on one event. */
export interface StageCosts {
  /** authenticate(): the one-credential rule, the Bearer header, the cached verification. */
  readonly token: number;
  /** decodeJson(): UTF-8 check, nesting depth on the bytes, JSON.parse. */
  readonly decode: number;
  /** parseTopicsForm(): normalise and validate, the id, the message's JSON and attributes. */
  readonly message: number;
  /** encodePublishRequest() of the one message alone: a call shares this among its messages. */
  readonly encode: number;
}

/**
 * µs per call of `f`: the lowest of 20 short rounds sharing `n` calls, after a warm-up. On a
 * shared machine most rounds are slowed by a neighbour; a short one has a chance to run clear.
 */
function timed(n: number, f: () => void): number {
  for (let i = 0; i < n; i++) f();
  const calls = Math.max(1, Math.ceil(n / 20));
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 20; round++) {
    const started = performance.now();
    for (let i = 0; i < calls; i++) f();
    best = Math.min(best, ((performance.now() - started) * 1000) / calls);
  }
  return best;
}

/**
 * Times the gateway's steps on `body` with the token the gateway was given (read from the same
 * store), as a server's request on the plain form; each step must succeed, or this throws.
 */
export async function stageCosts(
  store: TokenStore,
  token: string,
  body: string,
  settings: Readonly<Settings>,
  calls: number,
): Promise<StageCosts> {
  const credentials = await startCredentialCache(store);
  try {
    const deps = { credentials, principals: [], now: Date.now };
    const header = `Bearer ${token}`;
    // authenticate reads only the request's headers.
    const req = { rawHeaders: ['Authorization', header], headers: { authorization: header } };
    const authed = authenticate(req as unknown as IncomingMessage, [], deps);
    if (isPending(authed) || !authed.ok) throw new Error('stage timing: the token was not accepted at once');
    const bytes = Buffer.from(body);
    const limits = limitsOf(settings);
    const options = normalizeOptions(settings);
    const client = { sender: 'server', credential: 'token' } as const;
    // The attribute every message carries (gateway/tracing.ts); its value is any valid context.
    const trace = { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-00` };
    const parse = () =>
      parseTopicsForm(JSON.parse(body), 'events', undefined, {
        limits,
        options,
        received: Date.now(),
        client,
        newId: () => uuidv7(),
        trace,
      });
    const parsed = parse();
    if (!parsed.ok)
      throw new Error(`stage timing: the event was refused: ${parsed.error.body.error.message}`);
    const decoded = decodeJson(bytes, limits.maxDepth);
    if (!decoded.ok) throw new Error('stage timing: the body did not decode');
    const topic = 'projects/bench/topics/events';
    const messages = parsed.value.messages;
    return {
      token: timed(calls, () => void authenticate(req as unknown as IncomingMessage, [], deps)),
      decode: timed(calls, () => void decodeJson(bytes, limits.maxDepth)),
      // The body's JSON.parse is in `decode`: only the rest counts here.
      message: Math.max(0, timed(calls, parse) - timed(calls, () => void JSON.parse(body))),
      encode: timed(calls, () => void encodePublishRequest(topic, messages)),
    };
  } finally {
    credentials.close();
  }
}

/** CPU µs per request of each process of a load (bench/gateway.ts's Measured.cpuUs). */
type Cpu = Readonly<Record<string, number>>;

/**
 * The two figures: the gateway's own steps against its process's CPU per POST; and the machine's
 * CPU per request at 0.5x the bare rate against the gateway run's. The bare run spent
 * `bare + its autocannon` µs of the machine per request; at half its rate and the same use of the
 * cores, a request may spend twice that, and the emulator and autocannon take their part of it
 * first. A gateway above what remains cannot reach 0.5x here, however the cores are shared.
 */
export function stageFigures(stages: StageCosts, gateway: Cpu, bare: Cpu): BenchFigure[] {
  const n = (v: number | undefined) => v ?? Number.NaN;
  const gatewayUs = n(gateway['gateway']);
  const emulator = n(gateway['emulator']);
  const cannon = n(gateway['bench (autocannon)']);
  const bareUs = n(bare['bare']);
  const bareCannon = n(bare['bench (autocannon)']);
  const own = stages.token + stages.decode + stages.message + stages.encode;
  const budget = 2 * (bareUs + bareCannon);
  const left = budget - emulator - cannon;
  const f = (v: number) => v.toFixed(1);
  return [
    {
      name: "the gateway's own steps per single-event POST, timed in process",
      value: own,
      unit: 'µs',
      baseline: { name: 'the gateway process per POST (/proc)', value: gatewayUs },
      detail: `token ${f(stages.token)}, body decode (UTF-8, depth, JSON.parse) ${f(stages.decode)}, validation and message (normalise, id, JSON, attributes) ${f(stages.message)}, Publish encoding ${f(stages.encode)} (one message per call; a call shares it); the other ${f(gatewayUs - own)} µs are node's HTTP server and sockets, the Publish call, tracing, timers and GC (the bare server spends ${f(bareUs)} on its HTTP and JSON.parse)`,
    },
    {
      name: 'machine CPU per single-event POST that 0.5x the bare rate leaves',
      value: budget,
      unit: 'µs',
      baseline: { name: 'the gateway run, all its processes', value: gatewayUs + emulator + cannon },
      detail: `2 x (bare ${f(bareUs)} + its autocannon ${f(bareCannon)}) at the bare run's use of the cores; less the emulator's ${f(emulator)} and autocannon's ${f(cannon)}, ${left > 0 ? `the gateway may spend ${f(left)} µs per POST` : `they alone are over it by ${f(-left)} µs`} (the gateway spends ${f(gatewayUs)})`,
    },
  ];
}
