import { createHash } from 'node:crypto';
import { payloadDigest } from '../core/identity.ts';
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
const old = (e: object) => createHash('sha256').update(reference(e)).digest('hex');
const ev = { event_id: '0193a3f0-7c1e-7d2a-9b1e-3f2a1c0d4e5f', event_time: '2026-11-24T01:00:00.000Z', event_name: 'purchase',
  context: { client_id: 'abc.123', ip: '203.0.113.9', user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36', page: { url: 'https://shop.example/checkout?x=1', referrer: 'https://www.google.com/' }, consent: { ads: 'granted', analytics: 'granted' }, user: { email: 'ana@example.com' } },
  data: { transaction_id: 'T-1001', value: 129.9, currency: 'EUR', items: [{ item_id: 'SKU-1', item_name: 'Roof tiles', price: 59.95, quantity: 2 }, { item_id: 'SKU-2', item_name: 'Gutter', price: 10, quantity: 1 }] } };
if (old(ev) !== payloadDigest(ev)) throw new Error('differ');
const v: Record<string, () => string> = { old: () => old(ev), new: () => payloadDigest(ev) };
const res: Record<string, number[]> = {};
for (let r = 0; r < 9; r++) for (const [k, f] of Object.entries(v)) { const n = 50000; const t = process.cpuUsage(); for (let i = 0; i < n; i++) f(); const c = process.cpuUsage(t); (res[k] ??= []).push((c.user + c.system) / n); }
for (const [k, a] of Object.entries(res)) { a.sort((x, y) => x - y); console.log(k, a[4]!.toFixed(2), 'µs median'); }
