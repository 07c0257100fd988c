/**
 * Where the log redaction (core/privacy/redact-log.ts) meets the process: every service's entry
 * point calls `redactProcessOutput()` first, and from then on everything written to stdout or
 * stderr — console.log, a library's warning, an uncaught error's report through
 * `process.stderr.write` — goes through `redactLogText` on its way out. On Google Cloud that output
 * is what Cloud Logging stores; locally the supervisor writes it to <data>/logs/<service>.log.
 *
 * The secret values the process holds are told to it by the one place each is read
 * (adapters/secrets.ts for every secret, adapters/google-oauth.ts for access tokens, the studio's
 * admin token): `noteSecret`. The set is bounded: a process holds a few dozen secrets.
 */
import { type KnownSecrets, redactLogText, secretForms, secretParts } from '../core/privacy/redact-log.ts';

/** At most this many secret values are remembered (the oldest are forgotten past it). */
const MAX_SECRETS = 1000;

const held = new Set<string>();
let known: KnownSecrets = { values: [] };
let installed = false;

/** Tells the redactor a secret value this process holds (its parts and encodings too). */
export function noteSecret(value: string | undefined): void {
  if (value === undefined) return;
  let added = false;
  for (const part of secretParts(value))
    for (const form of secretForms(part))
      if (!held.has(form)) {
        held.add(form);
        added = true;
      }
  if (!added) return;
  while (held.size > MAX_SECRETS) held.delete(held.values().next().value as string);
  // Longest first, so a secret that holds another is replaced whole.
  known = { values: [...held].sort((a, b) => b.length - a.length) };
}

/** The redaction as this process applies it (tests, and writers that bypass stdout). */
export const redactLine = (text: string): string => redactLogText(text, known);

type Write = typeof process.stdout.write;

function redacting(original: Write, stream: NodeJS.WriteStream): Write {
  return function write(this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
    const text =
      typeof chunk === 'string'
        ? chunk
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8')
          : undefined;
    const out = text === undefined ? chunk : redactLogText(text, known);
    // An encoding given for a string chunk no longer applies to the redacted text.
    const args =
      typeof chunk === 'string' || text === undefined ? rest : rest.filter((a) => typeof a !== 'string');
    return (original as (...a: unknown[]) => boolean).call(stream, out, ...args);
  } as Write;
}

/** Makes every later write to stdout and stderr of this process go through the redaction (once). */
export function redactProcessOutput(): void {
  if (installed) return;
  installed = true;
  process.stdout.write = redacting(process.stdout.write, process.stdout);
  process.stderr.write = redacting(process.stderr.write, process.stderr);
}
