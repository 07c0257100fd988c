/**
 * `eventbus key create|list|revoke`: write keys for browsers. Publish-only, bound to origins,
 * passed as `?key=` or `X-Write-Key` (sendBeacon cannot set Authorization).
 */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import type { CredentialRecord } from '../../gateway/credentials.ts';
import { CliError, formatOption, type OutputFormat, writerOf } from '../output.ts';
import {
  describeRecord,
  parseRate,
  printRecords,
  readStore,
  revokeRecord,
  type StoreFlags,
  storeFor,
  storeOptions,
} from './token.ts';

export function register(program: Command): void {
  const key = program.command('key').description('Write keys for browser producers (?key= or X-Write-Key)');
  storeOptions(
    key
      .command('create')
      .description('Create a write key for one or more origins and print it')
      .requiredOption('--origin <origin...>', 'allowed origin(s), e.g. https://shop.example')
      .option('--description <text>', 'what the key is for')
      .option('--event <name...>', 'the only event names the key may publish (default: any)')
      .option('--rate <n>', 'requests per second for this key (default: settings.tokens)', parseRate)
      .option('--server', 'also usable from a server, as HTTP Basic without an Origin (docs/senders.md)')
      .option(
        '--money',
        'its purchase and subscribe events count as verified and may reach ad platforms (default: stored, marked unverified; docs/gateway.md)',
      ),
  )
    .addHelpText(
      'after',
      '\nExample:\n  eventbus key create --origin https://shop.example --event page_view view_content --rate 50 --description "storefront"',
    )
    .action(
      async (
        o: StoreFlags & {
          origin: string[];
          event?: string[];
          description?: string;
          rate?: number;
          server?: boolean;
          money?: boolean;
        },
        command: Command,
      ) => {
        const [{ store, settings }, { issueKey }] = await Promise.all([
          storeFor(o),
          import('../../gateway/credentials.ts'),
        ]);
        const cors = settings.producers?.origins ?? [];
        let issued: { secret: string; record: CredentialRecord };
        try {
          issued = await store.update((set) => {
            const r = issueKey(
              set,
              {
                origins: o.origin,
                ...(o.event ? { events: o.event } : {}),
                ...(o.description ? { description: o.description } : {}),
                ...(o.rate !== undefined ? { rateLimitPerSecond: o.rate } : {}),
                ...(o.server ? { server: true } : {}),
                ...(o.money ? { money: true } : {}),
              },
              randomBytes,
              new Date(),
            );
            return { set: r.set, result: { secret: r.secret, record: r.record } };
          });
        } catch (err) {
          throw new CliError((err as Error).message);
        }
        const write = writerOf(command);
        write(`${issued.secret}\n\nWrite key ${issued.record.id} created in ${store.where}.\n`);
        const missing = o.origin.filter((x) => !cors.includes(x));
        if (missing.length > 0) {
          write(
            `Note: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in producers.origins: the tag and requests without custom headers work with this key (the gateway answers CORS for a key's own origins), but a browser request that needs a CORS preflight (a JSON body, an X-Write-Key header) is refused until you add ${missing.length === 1 ? 'it' : 'them'} there.\n`,
          );
        }
      },
    );
  storeOptions(key.command('list').description('List write keys (ids, origins, state)'))
    .addOption(formatOption(['table', 'json', 'csv']))
    .action(async (o: StoreFlags & { format: OutputFormat }, command: Command) => {
      const set = await readStore(o);
      printRecords(
        set.keys.map((r) => describeRecord(r, Date.now())),
        o.format,
        'no write keys',
        writerOf(command),
      );
    });
  storeOptions(
    key
      .command('revoke')
      .description('Revoke a write key by id')
      .argument('<id>', 'key id, as `key list` shows it'),
  ).action(async (id: string, o: StoreFlags, command: Command) => {
    await revokeRecord(o, id, 'key');
    writerOf(command)(`write key ${id} revoked\n`);
  });
}
