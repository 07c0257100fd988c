/**
 * `matchGlob` of objects.list, as Cloud Storage reads it: `*` is any run of characters but `/`,
 * `**` any run including `/` (`**` before a slash also matches nothing), `?` one character but `/`, `[abc]`
 * and `[!abc]` one of (or none of) a set, `{a,b}` one of the alternatives.
 */
import { StorageError } from './errors.ts';

const SPECIAL = /[.+^$()|\\]/;

export function globToRegExp(glob: string): RegExp {
  let re = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) throw new StorageError('invalid', `Invalid matchGlob: ${glob}`);
      let set = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
      if (set.startsWith('!')) set = `^${set.slice(1)}`;
      re += `[${set}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      re += ')';
    } else if (c === ',' && braces > 0) re += '|';
    else re += SPECIAL.test(c) ? `\\${c}` : c;
  }
  if (braces !== 0) throw new StorageError('invalid', `Invalid matchGlob: ${glob}`);
  return new RegExp(`^${re}$`, 's');
}
