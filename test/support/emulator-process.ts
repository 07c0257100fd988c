/** An emulator run as its own process (for kill -9 tests), ready once it prints its one line. */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Starts `emulators/<kind>/main.ts` on an ephemeral port and the given data dir; resolves with
 * the URL of its ready line (`<kind> emulator listening on http://...`), rejects if it exits first.
 */
export function launchEmulator(
  kind: 'pubsub' | 'storage' | 'bigquery' | 'bigtable',
  dataDir: string,
  extraArgs: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const main = fileURLToPath(new URL(`../../emulators/${kind}/main.ts`, import.meta.url));
  const child = spawn(process.execPath, [main, '--port', '0', '--data-dir', dataDir, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = new RegExp(`^${kind} emulator listening on (http://\\S+)\\n`);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = ready.exec(out);
      if (m) resolve({ child, url: m[1] as string });
    });
    child.on('exit', (code) => reject(new Error(`emulator exited (${code}): ${err}`)));
  });
}

/** The exit code, or the signal's name when a signal ended the process (so a failure says which). */
export function exited(child: ChildProcess): Promise<number | string | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode);
    else child.once('exit', (code, signal) => resolve(code ?? signal));
  });
}
