import { describe, it, expect } from 'vitest';
import { formatTable } from './io.js';

describe('formatTable', () => {
  it('pads every column but the last to its widest cell, two spaces apart', () => {
    const table = formatTable(
      ['ID', 'CLIENT', 'SCOPE'],
      [
        ['tok_1', 'https://quill.p3k.io/', 'create'],
        ['t2', 'https://a.example/', 'create update media'],
      ],
    );
    expect(table).toBe(
      [
        'ID     CLIENT                 SCOPE',
        'tok_1  https://quill.p3k.io/  create',
        't2     https://a.example/     create update media',
        '',
      ].join('\n'),
    );
  });

  it('widens a column to its header when the header is longest', () => {
    expect(formatTable(['IDENTIFIER', 'X'], [['a', 'b']])).toBe('IDENTIFIER  X\na           b\n');
  });

  it('starts every column at the same offset on every line', () => {
    const lines = formatTable(
      ['A', 'BB', 'C'],
      [
        ['xxxx', 'y', 'z'],
        ['', 'yyyyy', 'zz'],
      ],
    )
      .trimEnd()
      .split('\n');
    expect(lines).toEqual(['A     BB     C', 'xxxx  y      z', '      yyyyy  zz']);
  });

  it('does not pad the last column', () => {
    const table = formatTable(
      ['NAME', 'NOTE'],
      [
        ['a', 'x'],
        ['b', 'longer note'],
      ],
    );
    for (const line of table.split('\n')) expect(line).toBe(line.trimEnd());
  });

  it('prints only the header when there are no rows', () => {
    expect(formatTable(['ID', 'NAME'], [])).toBe('ID  NAME\n');
  });

  it('ends with a newline', () => {
    expect(formatTable(['ID'], [['1']]).endsWith('\n')).toBe(true);
  });

  it('treats missing cells as empty when sizing columns', () => {
    expect(formatTable(['ID', 'NAME', 'X'], [['1'], ['22', 'bob', 'x']])).toBe('ID  NAME  X\n1\n22  bob   x\n');
  });

  it('keeps empty cells in place', () => {
    expect(formatTable(['A', 'B', 'C'], [['', '', 'c']])).toBe('A  B  C\n      c\n');
  });
});
