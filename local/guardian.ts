/**
 * The supervisor's guardian: a tiny process that outlives the supervisor only to clean up after
 * it. The supervisor writes each child's process-group id and stage (`<pgid> app` or
 * `<pgid> emulator`) on the guardian's stdin. When that pipe closes without the word `done` —
 * the supervisor crashed, was SIGKILLed, or a test or bench that ran it died — the guardian
 * stops every group it was told about as the supervisor would have: the apps first, with
 * SIGTERM, so a function finishes and records what it was sending (adapters/drain.ts) while the
 * emulators it records to still run; then the emulators; each stage's groups are SIGKILLed once
 * the grace (argv[2], ms; the supervisor's own) is over. So no emulator or function is left
 * running on its own, and a crashed supervisor costs no more than a clean stop. It runs in its
 * own process group, so Ctrl-C reaches the supervisor (which stops children in order) and not
 * the guardian.
 */
type Stage = 'app' | 'emulator';

const graceMs = Number(process.argv[2] ?? 5000);
const groups = new Map<number, Stage>();
let done = false;
let pending = '';

const alive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};
const signal = (pgid: number, name: NodeJS.Signals): void => {
  try {
    process.kill(-pgid, name);
  } catch {
    // already gone
  }
};

/** SIGTERM to a stage's groups, then SIGKILL to what is left once they are gone or the grace is over. */
async function stop(stage: Stage): Promise<void> {
  const mine = [...groups].filter(([, s]) => s === stage).map(([pgid]) => pgid);
  for (const pgid of mine) signal(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (mine.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  // Also the sweep: a leader that exited may have left children of its own in its group.
  for (const pgid of mine) signal(pgid, 'SIGKILL');
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    if (line === 'done') done = true;
    const m = /^(\d+)(?: (app|emulator))?$/.exec(line);
    if (m) groups.set(Number(m[1]), (m[2] as Stage | undefined) ?? 'app');
  }
});
process.stdin.on('end', async () => {
  if (!done) {
    await stop('app');
    await stop('emulator');
  }
  process.exit(0);
});
// Signals meant for the terminal's foreground group are not for us: only the pipe decides.
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
