/**
 * The command-line half of both replays (`replay --events-dead-letters` and `replay --destination
 * … --dead-letters`); the pulling itself is adapters/backlog.ts.
 */
import { CliError, type OutputFormat } from '../output.ts';

export {
  drainBacklog,
  fromReceived,
  type Pulled,
  type PullSource,
  pubSubPullSource,
} from '../../adapters/backlog.ts';

/** Command-line options of a destination replay (the destination half of `eventbus replay`). */
export interface DestinationReplayOptions {
  readonly env: string;
  readonly dataDir?: string;
  readonly destination?: string;
  readonly deadLetters?: boolean;
  readonly from?: string;
  readonly to?: string;
  readonly where?: string;
  /** With --from/--to: send again what the destination already has. */
  readonly force?: boolean;
  readonly limit?: string;
  readonly format: OutputFormat;
}

/** `--limit`: absent, or a positive integer. */
export function parseLimit(text: string | undefined): number | undefined {
  const limit = text === undefined ? undefined : Number(text);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new CliError('--limit must be a positive integer');
  return limit;
}
