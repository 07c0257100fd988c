/** The storage emulator's pure parts: byte order of names, matchGlob, and `fields` selections. */
import assert from 'node:assert/strict';
import { byteOrder } from '../catalog.ts';
import { parseFields, selectFields } from '../fields.ts';
import { globToRegExp } from '../glob.ts';

describe('storage emulator parts', () => {
  it('orders names by UTF-8 bytes, not UTF-16 code units', () => {
    const names = ['b', 'a/2', '\uFF21', '\u{1F600}', 'a/10', 'é', 'A'];
    const bytes = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    assert.deepEqual([...names].sort(byteOrder), bytes);
    assert.ok(byteOrder('\u{1F600}', '\uFF21') > 0, 'U+1F600 sorts after U+FF21 in UTF-8');
  });

  it('reads matchGlob as Cloud Storage does', () => {
    const cases: [string, string, boolean][] = [
      ['CloudLogo*', 'CloudLogo1', true],
      ['CloudLogo*', 'dir/CloudLogo1', false],
      ['**/CloudLogo*', 'dir/inner/CloudLogo6', true],
      ['**/CloudLogo*', 'CloudLogo1', true],
      ['a/*.txt', 'a/b/c.txt', false],
      ['a/**.txt', 'a/b/c.txt', true],
      ['file?.csv', 'file1.csv', true],
      ['file?.csv', 'file/.csv', false],
      ['[ab]*', 'b1', true],
      ['[!ab]*', 'b1', false],
      ['*.{png,jpg}', 'x.jpg', true],
      ['*.{png,jpg}', 'x.gif', false],
      ['a.b', 'axb', false],
    ];
    for (const [glob, name, expected] of cases)
      assert.equal(globToRegExp(glob).test(name), expected, `${glob} ~ ${name}`);
    assert.throws(() => globToRegExp('{a,b'), /Invalid matchGlob/);
  });

  it('keeps the fields a `fields` parameter selects', () => {
    const body = {
      kind: 'storage#objects',
      nextPageToken: 't',
      items: [
        { name: 'a', size: '1', metadata: { k: 'v', j: 'w' } },
        { name: 'b', size: '2' },
      ],
    };
    assert.deepEqual(selectFields(body, parseFields('items(name)')), {
      items: [{ name: 'a' }, { name: 'b' }],
    });
    assert.deepEqual(selectFields(body, parseFields('items(name,metadata/k),nextPageToken')), {
      items: [{ name: 'a', metadata: { k: 'v' } }, { name: 'b' }],
      nextPageToken: 't',
    });
    assert.throws(() => parseFields('items(name'), /Invalid field selection/);
  });
});
