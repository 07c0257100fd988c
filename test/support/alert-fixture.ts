/**
 * The Alert the alert tests share: Meta's failure rate above half the attempts, over the minute
 * before each evaluation, once a minute (the shortest the scheduler allows), to the `ops-chat`
 * connection; any attempt is judged.
 */
export const META_FAILING = Object.freeze({
  kind: 'Alert' as const,
  name: 'meta-failing',
  description: 'Tell ops when Meta refuses more than half of the attempts',
  spec: {
    condition: { failure_rate: { destination: 'meta', above: 0.5, window: '1m', min_attempts: 1 } },
    schedule: { every: '1m' },
    notify: { connection: 'ops-chat' },
    clear_after: 2,
  },
});
