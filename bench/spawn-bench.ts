/**
 * Runs bench/run.ts as a child process, as `npm run bench` does: its exit code and everything it
 * printed. Used by the quick check (bench/quick.ts) and the harness's own tests.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');

export function runBench(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench', 'run.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.once('close', (code) => done({ code, out }));
  });
}
