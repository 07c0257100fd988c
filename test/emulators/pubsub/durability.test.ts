/**
 * Durability: the emulator runs as a child process, is killed with SIGKILL, and restarted on the
 * same data dir. Every answered publish is delivered again; nothing acknowledged reappears.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorOf, rest, tempDir } from './support.ts';

const MAIN = fileURLToPath(new URL('../../../emulators/pubsub/main.ts', import.meta.url));

function launch(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [MAIN, '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^pubsub emulator listening on (http:\/\/\S+)\n/.exec(out);
      if (m) resolve({ child, url: m[1] as string });
    });
    child.on('exit', (code) => reject(new Error(`emulator exited (${code}): ${err}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

describe('pubsub emulator durability', () => {
  const dataDir = tempDir();
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps answered publishes and forgets acknowledged messages across kill -9', async () => {
    const first = await launch(dataDir);
    children.push(first.child);
    const base = first.url;
    assert.equal((await rest(base, 'PUT', '/v1/projects/p/topics/dur')).status, 200);
    assert.equal(
      (await rest(base, 'PUT', '/v1/projects/p/subscriptions/dur-s', { topic: 'projects/p/topics/dur' }))
        .status,
      200,
    );
    const published: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, batch) => {
        const messages = Array.from({ length: 10 }, (_, i) => ({
          data: Buffer.from(`${batch}-${i}`).toString('base64'),
        }));
        const res = await rest(base, 'POST', '/v1/projects/p/topics/dur:publish', { messages });
        published.push(...(res.body['messageIds'] as string[]));
      }),
    );
    assert.equal(published.length, 200);
    const pulled = await rest(base, 'POST', '/v1/projects/p/subscriptions/dur-s:pull', { maxMessages: 50 });
    const received = pulled.body['receivedMessages'] as { ackId: string; message: { messageId: string } }[];
    assert.equal(received.length, 50);
    const acked = new Set(received.map((r) => r.message.messageId));
    const ack = await rest(base, 'POST', '/v1/projects/p/subscriptions/dur-s:acknowledge', {
      ackIds: received.map((r) => r.ackId),
    });
    assert.equal(ack.status, 200);

    first.child.kill('SIGKILL');
    await exited(first.child);

    const second = await launch(dataDir);
    children.push(second.child);
    const remaining = new Set<string>();
    for (let i = 0; i < 10 && remaining.size < 150; i++) {
      const res = await rest(second.url, 'POST', '/v1/projects/p/subscriptions/dur-s:pull', {
        maxMessages: 1000,
      });
      for (const r of (res.body['receivedMessages'] ?? []) as { message: { messageId: string } }[]) {
        remaining.add(r.message.messageId);
      }
    }
    assert.deepEqual([...remaining].sort(), published.filter((id) => !acked.has(id)).sort());
    // Resources survived too, and new ids do not collide with old ones.
    const again = await rest(second.url, 'PUT', '/v1/projects/p/topics/dur');
    assert.equal(errorOf(again).status, 'ALREADY_EXISTS');
    const more = await rest(second.url, 'POST', '/v1/projects/p/topics/dur:publish', {
      messages: [{ data: 'eA==' }],
    });
    assert.ok(!published.includes((more.body['messageIds'] as string[])[0] as string));

    second.child.kill('SIGTERM');
    assert.equal(await exited(second.child), 0);
  });
});
