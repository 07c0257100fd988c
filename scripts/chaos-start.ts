/**
 * How the chaos run (scripts/chaos.ts) starts the environment: `eventbus start` as a user runs it,
 * on the run's settings, data dir and ports, with the run's variables added to its environment.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `eventbus start` as a user runs it; resolves once every service is ready, with their pids. */
export async function startEnvironment(
  settingsFile: string,
  dataDir: string,
  ports: Record<string, number>,
  env: Readonly<Record<string, string>>,
): Promise<{ child: ChildProcess; pids: Map<string, number>; output: () => string }> {
  const args = [join(REPO, 'cli', 'main.ts'), 'start', '--env', settingsFile, '--data-dir', dataDir];
  for (const [name, port] of Object.entries(ports)) args.push('--port', `${name}=${port}`);
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let output = '';
  child.stdout?.on('data', (b: Buffer) => {
    output += b.toString();
  });
  child.stderr?.on('data', (b: Buffer) => {
    output += b.toString();
  });
  const deadline = Date.now() + 120_000;
  while (!/development token/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`eventbus start failed:\n${output}`);
    await sleep(200);
  }
  const pids = new Map<string, number>();
  for (const m of output.matchAll(/^(\w+) ready on \S+ \(pid (\d+)\)/gm))
    pids.set(m[1] as string, Number(m[2]));
  if (child.pid) pids.set('supervisor', child.pid);
  return { child, pids, output: () => output };
}
