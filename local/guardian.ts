/**
 * The supervisor's guardian: a tiny process that outlives the supervisor only to clean up after
 * it. The supervisor writes each child's process-group id on the guardian's stdin. When that
 * pipe closes without the word `done` — the supervisor crashed, was SIGKILLed, or a test or
 * bench that ran it died — the guardian kills every group it was told about, so no emulator or
 * function is left running on its own. It runs in its own process group, so Ctrl-C reaches the
 * supervisor (which stops children in order) and not the guardian.
 */
const groups = new Set<number>();
let done = false;
let pending = '';

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    if (line === 'done') done = true;
    else if (/^\d+$/.test(line)) groups.add(Number(line));
  }
});
process.stdin.on('end', () => {
  if (!done) {
    for (const pgid of groups) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  process.exit(0);
});
// Signals meant for the terminal's foreground group are not for us: only the pipe decides.
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
