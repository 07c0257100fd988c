/**
 * A stand-in service for supervisor tests. Flags: --port N, --mode <ready|die|die-at-start|
 * ignore-term|grandchild|quiet|drain>, --peer URL, --note FILE. Serves GET /health and prints a ready line
 * like the emulators; `die` exits with code 3 when it is sent POST /die; `drain`, on SIGTERM,
 * asks the peer's /health (as a function records its last deliveries to an emulator) and appends
 * what it answered to the note file before it exits.
 */
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const port = Number(flag('port') ?? 0);
const mode = flag('mode') ?? 'ready';

if (mode === 'die-at-start') {
  console.error('dummy: cannot open its database');
  process.exit(2);
}
if (mode === 'ignore-term') process.on('SIGTERM', () => console.log('dummy: ignoring SIGTERM'));
else if (mode === 'drain')
  process.on('SIGTERM', async () => {
    const peer = await fetch(`${flag('peer')}/health`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => String(r.status),
      () => 'nothing',
    );
    // Its output went through the supervisor, which may be gone: the last words go to a file.
    appendFileSync(flag('note') as string, `dummy: drained on SIGTERM, the peer answered ${peer}\n`);
    process.exit(0);
  });
else process.on('SIGTERM', () => process.exit(0));

const server = createServer((req, res) => {
  // `die` dies when asked (POST /die), so a test sees it die after the start, whatever the load.
  if (mode === 'die' && req.method === 'POST' && req.url === '/die') {
    res.end('{}', () => {
      console.error('dummy: out of memory, giving up');
      process.exit(3);
    });
    return;
  }
  res.writeHead(req.url === '/health' ? 200 : 404, { 'content-type': 'application/json' });
  res.end('{"status":"ok"}');
});
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  const real = typeof address === 'object' && address ? address.port : port;
  if (mode !== 'quiet') console.log(`dummy listening on http://127.0.0.1:${real}`);
  if (mode === 'grandchild') {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    console.log(`grandchild ${child.pid}`);
  }
});
