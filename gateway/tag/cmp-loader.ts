/**
 * The consent platform reader (cmp.ts) and the storage rules (core/consent/storage-rules.ts),
 * loaded only on a page that has something for them to read (docs/browser.md, "Consent"): one of
 * the CMP APIs (`__tcfapi`, `__gpp`, `__uspapi`), a Consent Mode command in `dataLayer` (already
 * there, or pushed later), or consent the site stated itself (`analytics.consent()`, now or on an
 * earlier page). Until they have come the tag stores nothing and deletes nothing. A page without any makes
 * no request for it; a page with one loads `/v1/tag-cmp.js?v=<version>` once, from the tag's own
 * address (an immutable file the browser keeps), which hands its reader back through a global
 * the tag sets just before. Until it has, the state is what the tag knows without it: nothing,
 * and pending, so events wait as they do for a CMP that has not answered (up to 2 s for the
 * script, then the CMP's hold, 3 s or `data-hold`, from its arrival: gateway/tag/main.ts).
 */
import type { Cmp, watchCmp } from './cmp.ts';

/** The hand-off the reader's script calls with `watchCmp` (gateway/tag/cmp-entry.ts). */
export const CMP_HANDOFF = '__eventbusCmp';
const APIS = ['__tcfapi', '__gpp', '__uspapi'];

/** Whether a `dataLayer` entry is a Consent Mode command (`gtag('consent', …)`). */
const consentCommand = (entry: unknown) => (entry as ArrayLike<unknown> | null)?.[0] === 'consent';

/**
 * The CMP reader behind a loader: `url` the reader's script; `changed` as for watchCmp; `need`:
 * load it whatever the page has (the site stated consent on an earlier page). The object
 * answers for the reader until it has come, then takes the reader's own methods.
 */
export function lazyCmp(changed: () => void, url: string, arrived: () => void, need: boolean): Cmp {
  const w = window as unknown as Record<string, unknown>;
  /** Whether the reader's script was asked for (and has not come), and whether it failed to. */
  let asked = false;
  let failed = false;
  /** Whether an API of `name` is on the page while the reader has not come. */
  const unread = (name: string) => asked && typeof w[name] === 'function';
  const load = () => {
    if (asked) return;
    asked = true;
    w[CMP_HANDOFF] = (watch: typeof watchCmp) => {
      arrived();
      Object.assign(cmp, watch(changed));
      changed();
    };
    const script = document.createElement('script');
    script.src = url;
    script.onerror = () => {
      failed = true;
      changed();
    };
    document.head.appendChild(script);
  };
  let layer: unknown;
  const cmp: Cmp = {
    // A TCF or GPP CMP whose reader never came is still unanswered (the event says so, as cmp.ts's).
    known: () => ({
      ...(unread('__tcfapi') && { gdpr_applies: true }),
      ...(unread('__gpp') && { gpp_pending: true }),
    }),
    pending: () => asked && !failed,
    rules: () => undefined,
    look: (need) => {
      if (need) load();
      const dl = w['dataLayer'];
      if (Array.isArray(dl) && dl !== layer) {
        layer = dl;
        if (dl.some(consentCommand)) load();
        const push = dl.push;
        dl.push = function (this: unknown[], ...items: unknown[]) {
          const n = push.apply(this, items);
          if (items.some(consentCommand)) load();
          return n;
        };
      }
      if (APIS.some((name) => typeof w[name] === 'function')) load();
    },
  };
  cmp.look(need);
  return cmp;
}
