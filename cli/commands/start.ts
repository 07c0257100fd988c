/**
 * `eventbus start`: the local environment (emulators, gateway, functions) under one supervisor.
 */
import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('start')
    .description('Start the local environment (not yet wired: see local/supervisor.ts)')
    .action(() => {
      process.stderr.write('start: the supervisor is being written\n');
      process.exitCode = 1;
    });
}
