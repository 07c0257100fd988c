/** A Sync document whose audience `vip` is connected to `destinations`, with the audience's `settings` when given. */
export function audienceSyncDoc(
  destinations: readonly string[],
  settings?: Readonly<Record<string, unknown>>,
) {
  return {
    kind: 'Sync',
    name: 'vip-members',
    spec: {
      model: 'crm.vip_members',
      primary_key: ['user_id'],
      mode: 'mirror',
      schedule: { manual: true },
      destination: {
        audience: { key: 'vip', destinations: [...destinations], ...(settings ? { settings } : {}) },
      },
    },
  };
}
