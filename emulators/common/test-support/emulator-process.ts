/**
 * Test support shared by the emulator packages: an emulator's entry point run as its own process
 * (for kill -9 and restart tests), ready once it prints its one line, `<name> listening on <url>`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LaunchedEmulator {
  readonly child: ChildProcess;
  /** The URL of its ready line. */
  readonly url: string;
}

/**
 * Runs `node <nodeOptions> <main> <args>`; resolves once stdout starts with
 * `<name> listening on <url>` and a line end, rejects (with its stderr) if it exits before.
 */
export function launchEmulator(
  main: string,
  name: string,
  args: readonly string[],
  nodeOptions: readonly string[] = [],
): Promise<LaunchedEmulator> {
  const child = spawn(process.execPath, [...nodeOptions, main, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = `${name} listening on `;
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const end = stdout.indexOf('\n');
      if (end > 0 && stdout.startsWith(ready)) resolve({ child, url: stdout.slice(ready.length, end) });
    });
    child.once('exit', (code, signal) => {
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready: ${stderr}`));
    });
  });
}

/** The exit code, or the signal's name when a signal ended the process (so a failure says which). */
export async function exited(child: ChildProcess): Promise<number | string | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode ?? child.signalCode;
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return code ?? signal;
}

/** The processes a suite started: `reap()` (an `after` hook) SIGKILLs any still running. */
export function processKeeper(): { keep(child: ChildProcess): ChildProcess; reap(): void } {
  const kept: ChildProcess[] = [];
  const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
  return {
    keep: (child) => {
      kept.push(child);
      return child;
    },
    reap: () => {
      for (const c of kept.filter(running)) c.kill('SIGKILL');
    },
  };
}

/** An emulator started on a fresh temporary data directory, removed again by `stop()`. */
export async function inTempDir<E extends { close(): Promise<void> }>(
  prefix: string,
  startIn: (dataDir: string) => Promise<E>,
): Promise<{ readonly emulator: E; readonly dataDir: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const emulator = await startIn(dataDir);
  return {
    emulator,
    dataDir,
    stop: async () => {
      await emulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
