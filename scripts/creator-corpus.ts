/**
 * The creator measured on its labelled corpus (test/fixtures/creator-corpus/, issue #94): every
 * sample read, inferred and guessed as the studio's page does (`parseSample` → `inferFields` →
 * `guessChoices`), each guess judged against the sample's truth file. Used by
 * test/unit/creator-corpus.test.ts (which fails on a wrong identity or money field or event id
 * filled without asking, and on an uncalibrated confidence) and by `npm run docs`, which writes the figures into
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
 * The part held out now: a folder under the corpus, committed on its own before the inference
 * changes it is to measure, pinned by its hash in test/unit/creator-corpus.test.ts, or null while
 * none is committed. `held-out` (22 vendors, until 2026-11-27), `held-out-2` (20 vendors, from
 * 07adfff1), `held-out-3` (21 vendors, from d03bfb75), `held-out-4` (20 vendors, from 358f7dd9),
 * `held-out-5` (20 vendors, from 0c487a8b), `held-out-6` (20 vendors, from d8593bba),
 * `held-out-7` (20 vendors, from 610deebd), `held-out-8` (20 vendors, from 0c11602c), each until
 * 2026-11-27, `held-out-9` (20 vendors, from 9bc0e2a9), `held-out-10` (20 vendors, from
 * 30865670), `held-out-11` (20 vendors, from 2bb2dce6), `held-out-12` (20 vendors, from
 * 4eda7239), `held-out-13` (20 vendors, from 22e3fdd1), `held-out-14` (20 vendors, from
 * a30d6103), `held-out-15` (20 vendors, from dccf17fc), `held-out-16` (20 vendors, from
 * 89426d4a), `held-out-17` (20 vendors, from 5265b837), `held-out-18` (20 vendors, from
 * a34c4b83), `held-out-19` (20 vendors, from 58e80858), `held-out-20` (20 vendors, from
 * 988a935d) and `held-out-21` (20 vendors, from b509ecc5), each until 2026-11-28, and
 * `held-out-22` (20 vendors, from 245b82e8), `held-out-23` (20 vendors, from 599d9531),
 * `held-out-24` (20 vendors, from d0ec9667), `held-out-25` (20 vendors, from 070dc3b4),
 * `held-out-26` (20 vendors, from 1018151b), `held-out-27` (20 vendors, from 88096dd0),
 * `held-out-28` (20 vendors, from 82c3b05c to db92569f), `held-out-29` (20 vendors, from
 * 3f0b3e0b), `held-out-30` (20 vendors, from e1984296 to 26563b08), `held-out-31` (20
 * vendors, from b6d0372a to 23c24d3f), `held-out-32` (20 vendors, from d61f3870 to
 * 98c444e2), `held-out-33` (20 vendors, from 5460f46f to 6e79af49) and `held-out-34` (20
 * vendors, from 8806e22a to dfa0373c), each until 2026-11-29, were held out and are now part of
 * `tuned` (docs/creator-inference.md says what each measured then).
 */
export const HELD_OUT: string | null = 'held-out-35';
/**
 * The next held-out part, when one is committed while another is still held out: a folder under
 * the corpus, written by an engineer who did not read the inference code and committed before the
 * rules that answer the held-out part's errors, so that it precedes every change it is to measure.
 * Pinned by its hash in test/unit/creator-corpus.test.ts, it is never loaded, run or measured
 * while queued (no part of the corpus reads it); when the held-out part is retired, it becomes
 * `HELD_OUT`. Null while none waits; `held-out-32` (20 vendors, from d61f3870 to 98c444e2) waited
 here until 2026-11-29.
 */
export const QUEUED: string | null = null;
/**
 * Whether the held-out part is run: false from its commit until the inference changes made after
 * it are done (only its reading step runs meanwhile), then true, and it is measured as it is,
 * never tuned on.
 */
export const HELD_OUT_MEASURED = true;

/** A part of the corpus: `tuned`, or the held-out part's folder name. */
export type Split = string;
/** The corpus's parts, each a folder: the tuned part, and the held-out part when there is one. */
export const SPLITS: readonly Split[] = HELD_OUT === null ? ['tuned'] : ['tuned', HELD_OUT];
/** The parts the creator is run on. */
export const MEASURED: readonly Split[] = HELD_OUT_MEASURED ? SPLITS : ['tuned'];
const splitName = (split: Split) => (split === 'tuned' ? 'tuned' : 'held out');

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

/** SHA-256 over a held-out part: each file's path and bytes, in path order. */
export function heldOutDigest(part: string, root = CORPUS): string {
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
/**
 * Roles whose wrong column filled without asking fails the corpus test: the guarded ones, and the
 * event id, since a wrong one folds two different events into one (they share it) and the second
 * is lost without a trace. The event time is not among them: a wrong time is seen on every row
 * and merges nothing, so it is counted in the figures but does not fail the test.
 */
export const FAILING: readonly Role[] = [...GUARDED, 'eventId'];
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

/** The targets that fill a role from a column (the value and currency are the guesses' own). */
const ROLE_TARGETS: Readonly<Record<Role, readonly string[]>> = {
  personId: ['user_id', 'user.external_id'],
  email: ['user.email'],
  phone: ['user.phone'],
  value: ['value'],
  currency: ['currency'],
  time: ['event_time'],
  eventId: ['event_id'],
};

/** The columns the creator gives a role. */
export function guessedOf(r: Run, role: Role): string[] {
  const g = r.guesses;
  const by = (targets: readonly string[]) =>
    g.columns.filter((c) => targets.includes(c.target)).map((c) => c.column);
  switch (role) {
    case 'value':
      return g.value ? [g.value.column] : [];
    case 'currency':
      return g.currency ? [g.currency.column] : [];
    case 'time': {
      const c = g.eventTime.column ?? g.eventTime.outside?.column;
      return c ? [c] : [];
    }
    default:
      return by(ROLE_TARGETS[role]);
  }
}

/**
 * The columns offered for a role by a question whose guess is its no answer (`noneGuessed`): the
 * page asks, and until the person picks one nothing is filled, right or wrong.
 */
export function openlyAskedOf(r: Run, role: Role): string[] {
  return r.guesses.questions
    .filter((q) => q.noneGuessed && ROLE_TARGETS[role].includes(q.field ?? q.target))
    .flatMap((q) => q.options.map((o) => o.column));
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
   * right one is asked about (preselected in a question, or offered by one whose guess is its no
   * answer, which fills nothing), or the creator does not find it.
   */
  right: number;
  wrong: number;
  asked: number;
  missed: number;
}

/** A wrong identity or money field, or event id, filled without asking. */
export interface SilentWrong {
  readonly sample: string;
  readonly split: Split;
  readonly column: string;
  readonly target: string;
}

/** One part's figures. */
export interface PartFigures {
  samples: number;
  vendors: number;
  readonly roles: Record<Role, RoleCount>;
  /** Person's e-mail, phone, name, street address and IP columns, and how many the creator marks personal. */
  readonly personal: { truth: number; marked: number };
  /**
   * Samples a person takes through the creator with no correction: every role the truth gives is
   * filled right or asked with the right answer offered, and nothing is filled wrong without asking
   * (the event time included). The measure from outside counts vendors taken through this way.
   */
  alone: number;
}

export interface Report {
  /** Each part the samples come from (tuned first), whatever its folder's name. */
  readonly parts: ReadonlyMap<Split, PartFigures>;
  readonly silentWrong: SilentWrong[];
  /** Shown confidence (percent) → guesses judged, right. */
  readonly levels: Map<number, { n: number; right: number }>;
}

const zero = (): RoleCount => ({ truth: 0, guessed: 0, correct: 0, right: 0, wrong: 0, asked: 0, missed: 0 });

/** A part's figures, counted from nothing. */
function partOf(parts: Map<Split, PartFigures>, split: Split): PartFigures {
  let part = parts.get(split);
  if (!part) {
    const roles = Object.fromEntries(ROLES.map((r) => [r, zero()])) as Record<Role, RoleCount>;
    part = { samples: 0, vendors: 0, roles, personal: { truth: 0, marked: 0 }, alone: 0 };
    parts.set(split, part);
  }
  return part;
}

/**
 * Every sample run and judged (by default those of the measured parts). `runOf` runs a sample: a
 * caller that also reads the runs hands in one that keeps them, rather than running them twice.
 */
export function measure(
  samples: readonly Sample[] = loadCorpus(CORPUS, MEASURED),
  runOf: (sample: Sample) => Run = run,
): Report {
  const parts = new Map<Split, PartFigures>();
  partOf(parts, 'tuned');
  const levels = new Map<number, { n: number; right: number }>();
  const silentWrong: SilentWrong[] = [];
  for (const sample of samples) {
    const part = partOf(parts, sample.split);
    const r = runOf(sample);
    const asked = askedColumns(r);
    let corrections = 0;
    for (const role of ROLES) {
      const count = part.roles[role];
      const truth = truthOf(sample.truth, role);
      const guessed = guessedOf(r, role);
      if (truth.length > 0) count.truth++;
      count.guessed += guessed.length;
      const right = guessed.filter((c) => agrees(r, role, c));
      count.correct += right.length;
      const silentRight = right.some((c) => !asked.has(c));
      const silentWrongCols = guessed.filter((c) => !asked.has(c) && !agrees(r, role, c));
      if (silentWrongCols.length > 0) {
        count.wrong++;
        corrections++;
      }
      if (truth.length > 0) {
        if (silentRight) count.right++;
        else if (right.length > 0 || openlyAskedOf(r, role).some((c) => agrees(r, role, c))) count.asked++;
        else {
          count.missed++;
          corrections++;
        }
      }
      if (FAILING.includes(role))
        for (const column of silentWrongCols)
          silentWrong.push({ sample: sample.name, split: sample.split, column, target: role });
    }
    for (const c of r.guesses.columns) {
      // A person's detail of anybody else, filled without asking, is a wrong identity too.
      if (c.target.startsWith('user') && !asked.has(c.column) && judge(r, c) === false)
        if (!silentWrong.some((w) => w.sample === sample.name && w.column === c.column)) {
          silentWrong.push({ sample: sample.name, split: sample.split, column: c.column, target: c.target });
          corrections++;
        }
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
      part.personal.truth++;
      if (c.personal) part.personal.marked++;
    }
    if (corrections === 0) part.alone++;
  }
  for (const [split, part] of parts) {
    const of = samples.filter((s) => s.split === split);
    part.samples = of.length;
    part.vendors = new Set(of.map((s) => s.vendor)).size;
  }
  return { parts, silentWrong, levels };
}

const pct = (a: number, b: number) => (b === 0 ? '—' : `${Math.round((a / b) * 100)}%`);

/** The figures as Markdown, for docs/creator-inference.md. */
export function corpusFigures(report: Report = measure()): string {
  const lines: string[] = [];
  const parts = [...report.parts].filter(([, p]) => p.samples > 0);
  const sum = (by: (p: PartFigures) => number) => parts.reduce((a, [, p]) => a + by(p), 0);
  lines.push(
    `${sum((p) => p.vendors)} vendors, ${sum((p) => p.samples)} samples: ` +
      parts.map(([s, p]) => `${splitName(s)} ${p.vendors} vendors (${p.samples} samples)`).join(', ') +
      '.',
    '',
    '| Role | Part | Samples with it | Right, not asked | Wrong, not asked | Asked | Missed | Precision | Recall |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const role of ROLES)
    for (const [s, p] of parts) {
      const c = p.roles[role];
      lines.push(
        `| ${ROLE_NAMES[role]} | ${splitName(s)} | ${c.truth} | ${c.right} | ${c.wrong} | ${c.asked} | ${c.missed} | ${pct(c.correct, c.guessed)} | ${pct(c.right + c.asked, c.truth)} |`,
      );
    }
  lines.push('');
  for (const [s, part] of parts) {
    const guarded = GUARDED.map((r) => part.roles[r]);
    const truth = guarded.reduce((a, c) => a + c.truth, 0);
    const right = guarded.reduce((a, c) => a + c.right, 0);
    const asked = guarded.reduce((a, c) => a + c.asked, 0);
    const p = part.personal;
    lines.push(
      `- ${splitName(s)}: ${right} of ${truth} identity and money fields (${pct(right, truth)}) filled right without asking, ` +
        `${asked} asked; the person's e-mail, phone, name, street address and IP marked personal: ${p.marked} of ${p.truth} (${pct(p.marked, p.truth)}); ` +
        `taken through with no correction: ${part.alone} of ${part.samples} samples (${pct(part.alone, part.samples)}).`,
    );
  }
  lines.push('', '| Confidence shown | Guesses judged | Right |', '|---|---|---|');
  for (const [level, l] of [...report.levels].sort((a, b) => b[0] - a[0]))
    lines.push(`| ${level}% | ${l.n} | ${pct(l.right, l.n)} |`);
  return lines.join('\n');
}
