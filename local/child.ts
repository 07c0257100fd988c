/**
 * One child process of the local supervisor: started in its own process group, its output
 * written to its log file with a short tail kept for reports, stopped with a grace period and
 * a sweep of its group.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceSpec } from './services.ts';

const TAIL_LINES = 30;

/** One running child: its output goes to its log file and a short tail kept for reports. */
export class Child {
  readonly spec: ServiceSpec;
  readonly process: ChildProcess;
  readonly tail: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  exit: { code: number | null; signal: string | null } | undefined;
  private readonly lineListeners = new Set<(line: string) => void>();

  constructor(spec: ServiceSpec, baseEnv: Readonly<Record<string, string | undefined>>) {
    this.spec = spec;
    const log = createWriteStream(spec.logFile, { flags: 'a' });
    log.write(`\n=== ${new Date().toISOString()} ${spec.command} ${spec.args.join(' ')}\n`);
    this.process = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: { ...baseEnv, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: Ctrl-C reaches the supervisor only, which stops children in
      // order, and a group kill also reaches anything the child started.
      detached: true,
    });
    let partial = '';
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) this.line(line);
    };
    this.process.stdout?.on('data', onData);
    this.process.stderr?.on('data', onData);
    this.exited = new Promise((done) => {
      this.process.on('error', (err) => {
        this.line(`(could not start: ${err.message})`);
        this.exit ??= { code: null, signal: null };
        log.end();
        done(this.exit);
      });
      this.process.on('close', (code, signal) => {
        if (partial) this.line(partial);
        this.exit ??= { code, signal };
        log.end();
        done(this.exit);
      });
    });
  }

  private line(line: string): void {
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
    for (const l of this.lineListeners) l(line);
  }

  onLine(listener: (line: string) => void): () => void {
    this.lineListeners.add(listener);
    return () => this.lineListeners.delete(listener);
  }

  /** Signals the whole process group; a group that is already gone is fine. */
  signal(signal: NodeJS.Signals): void {
    const pid = this.process.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: already gone.
    }
  }

  async stop(graceMs: number): Promise<void> {
    if (this.exit === undefined) {
      this.signal('SIGTERM');
      // The grace timer is cancelled once the child is gone: left pending, it would hold the
      // command's event loop open for the whole grace period after "stopped".
      const cancel = new AbortController();
      const timer = sleep(graceMs, 'timeout' as const, { signal: cancel.signal }).catch(
        () => 'exited' as const,
      );
      const first = await Promise.race([this.exited, timer]);
      cancel.abort();
      if (first === 'timeout') {
        process.stderr.write(`${this.spec.name} did not stop within ${graceMs} ms of SIGTERM: killing it\n`);
        this.signal('SIGKILL');
      }
      await this.exited;
    }
    // Sweep the group: the leader may have left children of its own behind. Wait (bounded)
    // until the group is empty, so "stopped" means no process is left.
    this.signal('SIGKILL');
    for (let i = 0; i < 40 && this.groupAlive(); i++) await sleep(50);
  }

  private groupAlive(): boolean {
    const pid = this.process.pid;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}
