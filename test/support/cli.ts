/** Runs the CLI in this process (cli/main.ts run) and keeps what it wrote and its exit code. */
import { run } from '../../cli/main.ts';

export async function runCli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const written = { out: '', err: '' };
  const code = await run(argv, {
    out: (t) => {
      written.out += t;
    },
    err: (t) => {
      written.err += t;
    },
  });
  return { code, ...written };
}
