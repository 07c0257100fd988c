/**
 * The creator measured on its labelled corpus (test/fixtures/creator-corpus/, issue #94): every
 * sample read, inferred and guessed as the studio's page does (`parseSample` → `inferFields` →
 * `guessChoices`), each guess judged against the sample's truth file. Used by
 * test/unit/creator-corpus.test.ts (which fails on a wrong identity or money field filled without
 * asking, and on an uncalibrated confidence) and by `npm run docs`, which writes the figures into
 * docs/creator-inference.md (`<!-- generated:creator-corpus -->`).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type ColumnGuess,
  type Guesses,
  guessChoices,
  inferFields,
  parseSample,
} from '../core/samples/index.ts';

export const CORPUS = resolve(import.meta.dirname, '../test/fixtures/creator-corpus');
/**
 * The corpus's parts, each a folder. `held-out` (22 vendors, until 2026-11-27), `held-out-2` (20
 * vendors, from 07adfff1), `held-out-3` (21 vendors, from d03bfb75), `held-out-4` (20 vendors, from
 * 358f7dd9) and `held-out-5` (20 vendors, from 0c487a8b), each until 2026-11-27, were held out and
 * are now part of `tuned` (docs/creator-inference.md says what each measured then); `held-out-6` is
 * the part held out now, committed before the changes that followed the retirement of `held-out-5`,
 * and only read (never guessed on) until they are done.
 */
export type Split = 'tuned' | 'held-out-6';
export const SPLITS: readonly Split[] = ['tuned', 'held-out-6'];
/**
 * The parts the creator is run on: the held-out part joined once the inference changes made after
 * it was committed were done (2026-11-27), and is measured as it is, never tuned on.
 */
export const MEASURED: readonly Split[] = SPLITS;
const SPLIT_NAMES: Readonly<Record<Split, string>> = { tuned: 'tuned', 'held-out-6': 'held out' };

/** A sample's truth file (test/fixtures/creator-corpus/README.md). */
export interface Truth {
  readonly source: string;
  readonly category: string;
  readonly records?: string;
  readonly eventId: readonly string[];
  readonly eventType: string | null;
  readonly time: readonly string[];
  readonly value: readonly string[];
  readonly currency: readonly string[];
  readonly minorUnits: boolean | null;
  /** column → "<whose> <kind>" */
  readonly personal: Readonly<Record<string, string>>;
}

export interface Sample {
  readonly split: Split;
  readonly vendor: string;
  /** `<vendor>/<file>` */
  readonly name: string;
  readonly text: string;
  readonly truth: Truth;
}

/** Every sample of the given parts (all by default), in a stable order. */
export function loadCorpus(root = CORPUS, splits: readonly Split[] = SPLITS): Sample[] {
  const out: Sample[] = [];
  for (const split of splits)
    for (const vendor of readdirSync(join(root, split)).sort())
      for (const file of readdirSync(join(root, split, vendor)).sort()) {
        if (file.endsWith('.truth.json')) continue;
        const base = file.slice(0, file.lastIndexOf('.'));
        const truth = JSON.parse(
          readFileSync(join(root, split, vendor, `${base}.truth.json`), 'utf8'),
        ) as Truth;
        out.push({
          split,
          vendor,
          name: `${vendor}/${file}`,
          text: readFileSync(join(root, split, vendor, file), 'utf8'),
          truth,
        });
      }
  return out;
}

/**
 * The sixth held-out part (test/fixtures/creator-corpus/held-out-6/), committed on its own (d8593bba)
 * before the inference changes that followed the retirement of the fifth, and measured once, at
 * the end of those changes.
 */
export const HELD_OUT_6 = 'held-out-6';

/** SHA-256 over a held-out part: each file's path and bytes, in path order. */
export function heldOutDigest(root = CORPUS, part = 'held-out'): string {
  const hash = createHash('sha256');
  const dir = join(root, part);
  for (const vendor of readdirSync(dir).sort())
    for (const file of readdirSync(join(dir, vendor)).sort()) {
      hash.update(`${vendor}/${file}\0`);
      hash.update(readFileSync(join(dir, vendor, file)));
      hash.update('\0');
    }
  return hash.digest('hex');
}

/** The roles measured: the person's identity, the event's money, its time and its id. */
export const ROLES = ['personId', 'email', 'phone', 'value', 'currency', 'time', 'eventId'] as const;
export type Role = (typeof ROLES)[number];
/** Roles whose wrong value costs the user (an ad platform gets it as the person's, or as the money). */
export const GUARDED: readonly Role[] = ['personId', 'email', 'phone', 'value', 'currency'];
const ROLE_NAMES: Readonly<Record<Role, string>> = {
  personId: 'person id',
  email: 'e-mail',
  phone: 'phone',
  value: 'value',
  currency: 'currency',
  time: 'time',
  eventId: 'event id',
};

/** The page's window for the event time, at a fixed now so the figures do not move with the clock. */
const NOW = Date.parse('2026-11-27T00:00:00Z');
const WINDOW = { now: NOW, pastMs: 1826 * 86_400_000, futureMs: 24 * 3_600_000 };

/** One sample as the page sees it: its rows and the guesses. */
export interface Run {
  readonly sample: Sample;
  readonly rows: readonly Record<string, unknown>[];
  readonly guesses: Guesses;
}

const parse = (sample: Sample) =>
  parseSample(sample.text, sample.truth.records ? { records: sample.truth.records } : {});

/** The rows the reading step alone gives (no inference, no guess): what a truth file may name. */
export function rowsOf(sample: Sample): readonly Record<string, unknown>[] {
  return parse(sample).rows;
}

export function run(sample: Sample): Run {
  const parsed = parse(sample);
  const fields = inferFields(parsed);
  return { sample, rows: parsed.rows, guesses: guessChoices(fields, parsed.rows, { window: WINDOW }) };
}

const whose = (t: Truth, column: string) => t.personal[column]?.split(' ')[0];
const kind = (t: Truth, column: string) => t.personal[column]?.split(' ')[1];
const person = (t: Truth, column: string, k?: string) =>
  whose(t, column) === 'person' && (k === undefined || kind(t, column) === k);

/** The columns the truth gives a role (any of them is right). */
export function truthOf(t: Truth, role: Role): string[] {
  const personal = (k: string) => Object.keys(t.personal).filter((c) => person(t, c, k));
  switch (role) {
    case 'personId':
      return personal('id');
    case 'email':
      return personal('email');
    case 'phone':
      return personal('phone');
    default:
      return [...t[role === 'time' ? 'time' : role]];
  }
}

/** The columns the creator gives a role. */
export function guessedOf(r: Run, role: Role): string[] {
  const g = r.guesses;
  const by = (targets: readonly string[]) =>
    g.columns.filter((c) => targets.includes(c.target)).map((c) => c.column);
  switch (role) {
    case 'personId':
      return by(['user_id', 'user.external_id']);
    case 'email':
      return by(['user.email']);
    case 'phone':
      return by(['user.phone']);
    case 'value':
      return g.value ? [g.value.column] : [];
    case 'currency':
      return g.currency ? [g.currency.column] : [];
    case 'time': {
      const c = g.eventTime.column ?? g.eventTime.outside?.column;
      return c ? [c] : [];
    }
    case 'eventId':
      return by(['event_id']);
  }
}

/** The columns the page asks about (a question's options, the event time outside the window). */
export function askedColumns(r: Run): Set<string> {
  const asked = new Set(r.guesses.questions.flatMap((q) => q.options.map((o) => o.column)));
  if (r.guesses.eventTime.outside) asked.add(r.guesses.eventTime.outside.column);
  return asked;
}

/** Whether a guessed column agrees with the truth for a role; a currency column holding the same codes agrees too. */
function agrees(r: Run, role: Role, column: string): boolean {
  const truth = truthOf(r.sample.truth, role);
  if (truth.includes(column)) return true;
  if (role !== 'currency') return false;
  const codes = (c: string) => r.rows.map((row) => String(row[c] ?? '').toUpperCase()).join('|');
  return truth.some((t) => codes(t) === codes(column));
}

const PERSON_KIND: Readonly<Record<string, string>> = {
  user_id: 'id',
  'user.external_id': 'id',
  'user.email': 'email',
  'user.phone': 'phone',
  'user.first_name': 'name',
  'user.last_name': 'name',
  'user.city': 'address',
  'user.region': 'address',
  'user.postal_code': 'address',
  'user.country': 'address',
  'device.ip': 'ip',
};

/**
 * Whether one column's guess is right, or undefined when the truth files cannot say (a page URL,
 * a campaign, consent).
 */
export function judge(r: Run, c: ColumnGuess): boolean | undefined {
  const t = r.sample.truth;
  // Left out because always empty: nothing in the sample to map, right by what it rests on.
  if (c.target === 'skip') return true;
  if (c.target === 'event_time') return t.time.includes(c.column);
  if (c.target === 'event_id') return t.eventId.includes(c.column);
  if (c.target in PERSON_KIND) return person(t, c.column, PERSON_KIND[c.target]);
  if (c.target.startsWith('user')) return person(t, c.column);
  if (c.target !== 'event_data') return undefined;
  if (c.field === 'value' && r.guesses.value?.column === c.column) return agrees(r, 'value', c.column);
  if (c.field === 'currency' && r.guesses.currency?.column === c.column)
    return agrees(r, 'currency', c.column);
  // Kept as an event field: wrong only when it is the person's identity or the event's money and
  // no column took that role rightly (a second e-mail beside the one taken is rightly a field).
  return !GUARDED.some(
    (role) => truthOf(t, role).includes(c.column) && !guessedOf(r, role).some((g) => agrees(r, role, g)),
  );
}

/** What happened to one role of one sample. */
export type Outcome = 'right' | 'wrong' | 'asked' | 'missed' | 'none';

export interface RoleCount {
  /** Samples whose truth gives the role. */
  truth: number;
  guessed: number;
  /** Guesses that agree with the truth. */
  correct: number;
  /**
   * Samples where a right column is filled without asking, a wrong one filled without asking, the
   * right one is among a question's options, or the creator does not find it.
   */
  right: number;
  wrong: number;
  asked: number;
  missed: number;
}

/** A wrong identity or money field filled without asking. */
export interface SilentWrong {
  readonly sample: string;
  readonly split: Split;
  readonly column: string;
  readonly target: string;
}

export interface Report {
  readonly samples: Record<Split, number>;
  readonly vendors: Record<Split, number>;
  readonly roles: Record<Split, Record<Role, RoleCount>>;
  readonly silentWrong: SilentWrong[];
  /** Person's e-mail, phone, name, street address and IP columns, and how many the creator marks personal. */
  readonly personal: Record<Split, { truth: number; marked: number }>;
  /** Shown confidence (percent) → guesses judged, right. */
  readonly levels: Map<number, { n: number; right: number }>;
}

const zero = (): RoleCount => ({ truth: 0, guessed: 0, correct: 0, right: 0, wrong: 0, asked: 0, missed: 0 });

/** Every sample run and judged (by default those of the measured parts). */
export function measure(samples: readonly Sample[] = loadCorpus(CORPUS, MEASURED)): Report {
  const roles = Object.fromEntries(
    SPLITS.map((s) => [s, Object.fromEntries(ROLES.map((r) => [r, zero()]))]),
  ) as Record<Split, Record<Role, RoleCount>>;
  const personal = Object.fromEntries(SPLITS.map((s) => [s, { truth: 0, marked: 0 }])) as Report['personal'];
  const levels = new Map<number, { n: number; right: number }>();
  const silentWrong: SilentWrong[] = [];
  for (const sample of samples) {
    const r = run(sample);
    const asked = askedColumns(r);
    for (const role of ROLES) {
      const count = roles[sample.split][role];
      const truth = truthOf(sample.truth, role);
      const guessed = guessedOf(r, role);
      if (truth.length > 0) count.truth++;
      count.guessed += guessed.length;
      const right = guessed.filter((c) => agrees(r, role, c));
      count.correct += right.length;
      const silentRight = right.some((c) => !asked.has(c));
      const silentWrongCols = guessed.filter((c) => !asked.has(c) && !agrees(r, role, c));
      if (silentWrongCols.length > 0) count.wrong++;
      if (truth.length > 0) {
        if (silentRight) count.right++;
        else if (right.length > 0) count.asked++;
        else count.missed++;
      }
      if (GUARDED.includes(role))
        for (const column of silentWrongCols)
          silentWrong.push({ sample: sample.name, split: sample.split, column, target: role });
    }
    for (const c of r.guesses.columns) {
      // A person's detail of anybody else, filled without asking, is a wrong identity too.
      if (c.target.startsWith('user') && !asked.has(c.column) && judge(r, c) === false)
        if (!silentWrong.some((w) => w.sample === sample.name && w.column === c.column))
          silentWrong.push({ sample: sample.name, split: sample.split, column: c.column, target: c.target });
      const ok = judge(r, c);
      if (ok === undefined) continue;
      const level = Math.round(c.confidence * 100);
      const l = levels.get(level) ?? { n: 0, right: 0 };
      l.n++;
      if (ok) l.right++;
      levels.set(level, l);
    }
    for (const [column, label] of Object.entries(sample.truth.personal)) {
      const [who, k] = label.split(' ');
      if (who !== 'person' || !['email', 'phone', 'name', 'address', 'ip'].includes(k as string)) continue;
      // A country or region alone names no one: only a street, city or postal code is an address here.
      if (k === 'address' && /country|state|province|region/i.test(column.slice(column.lastIndexOf('.') + 1)))
        continue;
      const c = r.guesses.columns.find((x) => x.column === column);
      if (!c || c.target === 'skip') continue;
      personal[sample.split].truth++;
      if (c.personal) personal[sample.split].marked++;
    }
  }
  const count = (split: Split, by: (s: Sample) => string) =>
    new Set(samples.filter((s) => s.split === split).map(by)).size;
  const bySplit = (by: (s: Sample) => string) =>
    Object.fromEntries(SPLITS.map((s) => [s, count(s, by)])) as Record<Split, number>;
  return {
    samples: bySplit((s) => s.name),
    vendors: bySplit((s) => s.vendor),
    roles,
    silentWrong,
    personal,
    levels,
  };
}

const pct = (a: number, b: number) => (b === 0 ? '—' : `${Math.round((a / b) * 100)}%`);

/** The figures as Markdown, for docs/creator-inference.md. */
export function corpusFigures(report: Report = measure()): string {
  const lines: string[] = [];
  const parts = SPLITS.filter((s) => report.samples[s] > 0);
  const sum = (by: Record<Split, number>) => parts.reduce((a, s) => a + by[s], 0);
  lines.push(
    `${sum(report.vendors)} vendors, ${sum(report.samples)} samples: ` +
      parts
        .map((s) => `${SPLIT_NAMES[s]} ${report.vendors[s]} vendors (${report.samples[s]} samples)`)
        .join(', ') +
      '.',
    '',
    '| Role | Part | Samples with it | Right, not asked | Wrong, not asked | Asked | Missed | Precision | Recall |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const role of ROLES)
    for (const s of parts) {
      const c = report.roles[s][role];
      lines.push(
        `| ${ROLE_NAMES[role]} | ${SPLIT_NAMES[s]} | ${c.truth} | ${c.right} | ${c.wrong} | ${c.asked} | ${c.missed} | ${pct(c.correct, c.guessed)} | ${pct(c.right + c.asked, c.truth)} |`,
      );
    }
  lines.push('');
  for (const s of parts) {
    const guarded = GUARDED.map((r) => report.roles[s][r]);
    const truth = guarded.reduce((a, c) => a + c.truth, 0);
    const right = guarded.reduce((a, c) => a + c.right, 0);
    const asked = guarded.reduce((a, c) => a + c.asked, 0);
    const p = report.personal[s];
    lines.push(
      `- ${SPLIT_NAMES[s]}: ${right} of ${truth} identity and money fields (${pct(right, truth)}) filled right without asking, ` +
        `${asked} asked; the person's e-mail, phone, name, street address and IP marked personal: ${p.marked} of ${p.truth} (${pct(p.marked, p.truth)}).`,
    );
  }
  lines.push('', '| Confidence shown | Guesses judged | Right |', '|---|---|---|');
  for (const [level, l] of [...report.levels].sort((a, b) => b[0] - a[0]))
    lines.push(`| ${level}% | ${l.n} | ${pct(l.right, l.n)} |`);
  return lines.join('\n');
}
