/**
 * Restarting right after a crash: the emulator is killed with SIGKILL and started again at once
 * on the same data dir — before the test's event loop has reaped the dead process, so it is
 * still a zombie — 20 times in a row. Every restart is accepted and every answered publish is
 * there at the end. A second emulator on a directory a live one holds is refused, naming it.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { procStat } from '@eventbus/emulator-common/owner-lock.ts';
import { childrenOnTempDir, rest, tempDir } from './support/harness.ts';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/**
 * Starts the emulator under a parent that never reaps it (sh becomes `sleep`), as under a
 * supervisor that died with it or a container init that reaps late: after a kill -9 the
 * emulator stays a zombie, which `kill(pid, 0)` still reports as alive.
 */
function launch(dataDir: string): { parent: ChildProcess; pid: Promise<number>; ready: Promise<string> } {
  const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)} --port 0 --data-dir ${JSON.stringify(dataDir)} 2>&1 & echo "pid $!"; exec sleep 120`;
  const parent = spawn('sh', ['-c', cmd], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const lines = new Promise<void>((resolve) => parent.stdout?.once('data', () => resolve()));
  parent.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const waitFor = <T>(re: RegExp, map: (m: RegExpExecArray) => T) =>
    new Promise<T>((resolve, reject) => {
      const started = Date.now();
      const check = () => {
        const m = re.exec(out);
        if (m) return resolve(map(m));
        if (/in use by another emulator|Error/.test(out)) return reject(new Error(out));
        if (Date.now() - started > 15_000) return reject(new Error(`no start: ${out}`));
        setTimeout(check, 10);
      };
      void lines.then(check);
    });
  return {
    parent,
    pid: waitFor(/^pid (\d+)$/m, (m) => Number(m[1])),
    ready: waitFor(/pubsub emulator listening on (http:\/\/\S+)\n/, (m) => m[1] as string),
  };
}

describe('pubsub emulator: restart right after kill -9', () => {
  const { dataDir, children } = childrenOnTempDir();
  // The emulators are the parents' background children: killing a parent leaves its emulator
  // running, so each is stopped by its own pid.
  const emulators: Promise<number>[] = [];
  after(async () => {
    // Never 0 or negative: those signal process groups, not one emulator.
    for (const pid of await Promise.allSettled(emulators))
      if (pid.status === 'fulfilled' && pid.value > 0) {
        try {
          process.kill(pid.value, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
  });

  it('accepts 20 immediate restarts and keeps every answered publish', async function () {
    // 20 process starts: 7 s on an idle machine, over 30 s beside the whole suite on 2 cores.
    this.timeout(120_000);
    const published: string[] = [];
    for (let round = 0; round < 20; round++) {
      const e = launch(dataDir);
      children.push(e.parent);
      const base = await e.ready;
      const pid = await e.pid;
      if (round === 0) {
        await rest(base, 'PUT', '/v1/projects/p/topics/t');
        await rest(base, 'PUT', '/v1/projects/p/subscriptions/s', { topic: 'projects/p/topics/t' });
      }
      const messages = Array.from({ length: 5 }, (_, i) => ({
        data: Buffer.from(`${round}-${i}`).toString('base64'),
      }));
      const res = await rest(base, 'POST', '/v1/projects/p/topics/t:publish', { messages });
      assert.equal(res.status, 200);
      published.push(...(res.body['messageIds'] as string[]));
      process.kill(pid, 'SIGKILL'); // stays a zombie: its parent never reaps it
      for (let i = 0; i < 100 && procStat(pid)?.state !== 'Z'; i++)
        await new Promise((r) => setTimeout(r, 10));
      assert.equal(procStat(pid)?.state, 'Z');
    }
    const last = launch(dataDir);
    children.push(last.parent);
    emulators.push(last.pid);
    const base = await last.ready;
    const seen = new Set<string>();
    for (let i = 0; i < 20 && seen.size < published.length; i++) {
      const pulled = await rest(base, 'POST', '/v1/projects/p/subscriptions/s:pull', { maxMessages: 1000 });
      const received = (pulled.body['receivedMessages'] ?? []) as { message: { messageId: string } }[];
      for (const r of received) seen.add(r.message.messageId);
    }
    assert.deepEqual([...seen].sort(), [...published].sort());
  });

  it('refuses a second emulator on a directory a live one holds, naming it', async () => {
    const dir = tempDir();
    try {
      const first = launch(dir);
      children.push(first.parent);
      emulators.push(first.pid);
      await first.ready;
      const firstPid = await first.pid;
      const second = launch(dir);
      children.push(second.parent);
      emulators.push(second.pid.catch(() => 0));
      await assert.rejects(second.ready, (e: Error) =>
        e.message.includes(`is in use by another emulator (pid ${firstPid}: `),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
