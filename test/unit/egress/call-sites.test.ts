/**
 * Every outbound HTTP call site of the code, found by grep (fetch(, http(s).request, a request of
 * node:http(s), createHttpSender, createTransport, undici), is either the egress gate's
 * (adapters/egress.ts, over adapters/http-sender.ts's transport) or listed here with the reason it
 * is not a call to a third party. A new call site fails this test until it goes through the gate
 * or is listed with its reason; the functions that call third parties build their sender from the gate.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SCANNED = [
  'adapters',
  'core',
  'functions',
  'gateway',
  'studio',
  'sources',
  'schemas',
  'local',
  'cli',
  'scripts',
  'infra',
];

/** What an outbound call looks like in this code base. */
const CALL =
  /\bfetch\(|\b(?:http|https)\.(?:request|get)\(|\bhttps?Request\(|request as https?Request|createHttpSender\(|createTransport\(|\bundici\b/;

/** Call sites that are not calls to a third party, each with why. */
const NOT_THIRD_PARTY: Readonly<Record<string, string>> = {
  'adapters/http-sender.ts': 'the transport itself; third parties reach it only through the gate',
  'adapters/egress.ts': 'the gate',
  'adapters/bigquery-rest.ts': "Google's BigQuery API (or its emulator): the service's own warehouse",
  'adapters/firestore-claims.ts':
    "Google's Firestore API (or its emulator): the service's own claims database",
  'adapters/segment-actions/run.ts': "calls the injected fetch: forward-catalog's is the gate (egressFetch)",
  'gateway/tag/sender.ts': "browser code: the tag posts to the gateway from the visitor's page",
  'studio/web/common.ts': "browser code: the studio's pages call the studio's own API",
  'studio/web/creator.ts': "browser code: the studio's own config",
  'studio/web/source-picker.ts': "browser code: the studio's own assets",
  'studio/creator-signing.ts':
    "the studio posts a sample to the environment's own gateway (its configured URL)",
  'local/access-probe.ts': 'local tool: probes the local emulators',
  'local/provision.ts': 'local tool: creates the claims database in the local Firestore emulator',
  'local/receiver/page.ts': "browser code: the local receiver's page",
  'local/receiver/server.ts': 'local stand-in: relays to a local upstream the developer named',
  'local/supervisor.ts': 'local tool: ticks the local schedule function',
  'cli/commands/sync.ts': "the operator's CLI asks the environment's own status endpoint",
  'cli/commands/resources.ts': "the operator's CLI calls the environment's own studio",
  'cli/commands/connect.ts': "the operator's CLI registers a client with the local receiver's OAuth stand-in",
  'cli/translator-secrets.ts': "the operator's CLI asks the local Secret Manager emulator, as the gateway",
  'adapters/secrets.ts':
    "Secret Manager's emulator (SECRET_MANAGER_EMULATOR_HOST): the service's own secrets",
  'adapters/trace-reader.ts':
    "Google's Cloud Trace API (or the local receiver, CLOUD_TRACE_EMULATOR_HOST): the service's own traces",
  'scripts/chaos.ts': 'a local chaos script against the local gateway',
};

/** The deployed functions that call third parties: their senders come from the gate. */
const GATED_ENTRY_POINTS = [
  'functions/forward/index.ts',
  'functions/forward-catalog/index.ts',
  'functions/schedule/index.ts',
];

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'test') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** Lines of code (comments left out) that make an outbound call. */
function callLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
    .filter((line) => CALL.test(line));
}

describe('egress: every outbound call site goes through the gate', () => {
  const found = new Map<string, string[]>();
  for (const top of SCANNED)
    for (const path of files(join(ROOT, top))) {
      const lines = callLines(readFileSync(path, 'utf8'));
      if (lines.length > 0) found.set(relative(ROOT, path).split('\\').join('/'), lines);
    }

  it('finds the call sites it knows (the scan itself works)', () => {
    assert.ok(found.has('adapters/http-sender.ts'));
    assert.ok(found.has('studio/creator-signing.ts'));
  });

  it('no call site outside the gate, unless listed as not a call to a third party', () => {
    const unlisted = [...found]
      .filter(([file]) => !(file in NOT_THIRD_PARTY))
      .map(([f, l]) => `${f}: ${l[0]?.trim()}`);
    assert.deepEqual(
      unlisted,
      [],
      'send these through adapters/egress.ts (createEgressSender / egressFetch)',
    );
  });

  it('every listed exception still makes a call (the list does not rot)', () => {
    const stale = Object.keys(NOT_THIRD_PARTY).filter((file) => !found.has(file));
    assert.deepEqual(stale, []);
  });

  it('forward, forward-catalog and schedule build their senders from the gate', () => {
    for (const file of GATED_ENTRY_POINTS) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      assert.match(text, /createEgressSender\(/, file);
      assert.doesNotMatch(text, /globalThis\.fetch|createHttpSender/, file);
    }
  });
});
