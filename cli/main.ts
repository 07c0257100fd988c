#!/usr/bin/env node
/**
 * `eventbus`: the project's one executable (the package's `bin`). Subcommands live in
 * cli/commands/ and are listed in cli/commands/index.ts. Errors go to stderr with a non-zero
 * exit; data goes to stdout.
 */
import { Command, CommanderError } from 'commander';
import * as commands from './commands/index.ts';
import { CliError, type Io, processIo } from './output.ts';

/** What every command module exports. */
export interface CommandModule {
  register(program: Command): void;
}

/** Builds the program with every command registered (tests call this without exiting). */
export function createProgram(io: Io = processIo): Command {
  // Output and exit behaviour are set before registering: subcommands inherit them when created.
  const program = new Command('eventbus')
    .description('Event collection on Google Cloud: settings, the local environment, tokens, SQL, replays.')
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  const modules: readonly CommandModule[] = Object.values(commands);
  for (const m of modules) m.register(program);
  return program;
}

/** Runs the CLI on argv (without node and script) and returns the exit code instead of exiting. */
export async function run(argv: readonly string[], io: Io = processIo): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliError) {
      io.err(`error: ${err.message}\n`);
      return err.exitCode;
    }
    io.err(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await run(process.argv.slice(2));
  // Long-running commands (start) set their own exit; only leave when the command is done.
  process.exitCode = code;
}
