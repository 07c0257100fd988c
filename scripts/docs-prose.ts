/**
 * What the docs test reads in prose: the sentences of a markdown text outside fenced code and
 * generated blocks, and the platforms a sentence names (by the names docs-platforms.ts gives
 * them, or by their destination types), so that a sentence listing platforms or destination types
 * by hand is found wherever it is written.
 */
import { PLATFORM_NAMES } from './docs-platforms.ts';

/** The text without fenced code blocks and generated blocks (their lines left empty). */
export function proseOf(markdown: string): string {
  return markdown
    .replace(/<!-- generated:[\s\S]*?<!-- \/generated -->/g, (m) => m.replace(/[^\n]/g, ''))
    .replace(/^```[\s\S]*?^```/gm, (m) => m.replace(/[^\n]/g, ''));
}

/** The sentences of a text's prose, each with the line it starts on: table rows count as one each. */
export function sentences(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  const lines = proseOf(markdown).split('\n');
  let current: string[] = [];
  let start = 0;
  const flush = () => {
    const paragraph = current.join(' ');
    for (const s of paragraph.split(/(?<=[.;:!?])\s+(?=[A-Z(`*[])/))
      if (s.trim()) out.push({ line: start + 1, text: s });
    current = [];
  };
  lines.forEach((line, i) => {
    if (/^\s*([-*]|\d+\.) /.test(line)) flush();
    if (line.trim() === '' || line.startsWith('|') || line.startsWith('#')) {
      flush();
      if (line.startsWith('|')) out.push({ line: i + 1, text: line });
      return;
    }
    if (current.length === 0) start = i;
    current.push(line);
  });
  flush();
  return out;
}

const WORDS = Object.values(PLATFORM_NAMES).map(({ short }) => ({
  short,
  // "X" is a platform only as a word of its own: not X-Eventbus-Signature, not ×.
  pattern: new RegExp(
    `(?<![\\w/.-])${short.replace(' ', '\\s+')}s?(?![\\w-])`,
    short === 'webhook' ? 'i' : '',
  ),
}));

/** Each platform's destination type as a word (`meta_capi`): a list of types is a list of platforms too. */
const TYPES = Object.entries(PLATFORM_NAMES).map(([type, { short }]) => ({
  short,
  pattern: new RegExp(`(?<![\\w-])${type}(?![\\w-])`),
}));

/** The platforms a sentence names, by name or by destination type, each once. */
export function platformsNamed(sentence: string): string[] {
  return [...new Set([...WORDS, ...TYPES].filter((w) => w.pattern.test(sentence)).map((w) => w.short))];
}
