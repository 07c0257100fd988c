/**
 * Running built bundles the way Cloud Functions and Cloud Run do: the real functions-framework
 * CLI on a function's folder (its one dependency linked in, as the build's npm install would
 * provide it), or `node main.js` for the gateway. Every child is killed and awaited.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { FRAMEWORK, REPO_ROOT } from '../../scripts/build-functions.ts';

// The framework CLI prints no port, so it cannot be told to use 0.
export { freePort } from '../../local/ports.ts';
export { linkFramework } from '../../scripts/build-functions.ts';

export const FRAMEWORK_CLI = join(REPO_ROOT, 'node_modules', FRAMEWORK, 'build', 'src', 'main.js');

export interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts a child and waits (bounded) until it is ready: its port accepts a connection (`tcp`,
 * so no request reaches the handler before the test's own; the framework prints nothing in
 * production), or else it answers HTTP on `path`.
 */
export async function startAndProbe(
  args: readonly string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    port: number;
    path?: string;
    tcp?: boolean;
    timeoutMs?: number;
  },
): Promise<Running> {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: { PATH: process.env['PATH'] ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${options.port}`;
  const running: Running = {
    child,
    url,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (options.tcp) {
      if (await accepts(options.port)) return running;
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    try {
      await fetch(`${url}${options.path ?? '/'}`, { signal: AbortSignal.timeout(1000) });
      return running;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  await running.stop();
  throw new Error(`${args.join(' ')} did not answer on ${url}:\n${out}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolveAccepts) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolveAccepts(true);
    });
    socket.once('error', () => resolveAccepts(false));
  });
}
