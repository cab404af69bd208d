import { findColumn, parseTableReference, quoteIdent, SourceTable } from './source-catalog.service';

describe('table references', () => {
  it('parses bare and quoted parts, with or without a schema', () => {
    expect(parseTableReference('orders')).toEqual({ schema: null, table: { text: 'orders', quoted: false } });
    expect(parseTableReference('public.Odd Name')).toEqual({
      schema: { text: 'public', quoted: false },
      table: { text: 'Odd Name', quoted: false },
    });
    expect(parseTableReference('public."Odd Name"')).toEqual({
      schema: { text: 'public', quoted: false },
      table: { text: 'Odd Name', quoted: true },
    });
    expect(parseTableReference('"my.schema"."Say ""hi"""')).toEqual({
      schema: { text: 'my.schema', quoted: true },
      table: { text: 'Say "hi"', quoted: true },
    });
    expect(parseTableReference(' sales . orders ')).toEqual({
      schema: { text: 'sales', quoted: false },
      table: { text: 'orders', quoted: false },
    });
  });

  it('refuses malformed references', () => {
    for (const bad of [
      '',
      'a.b.c',
      'sales.',
      '.orders',
      '"unterminated',
      '""',
      'a"b',
      '"a"b',
      'x\u0000y',
      '"a".',
    ]) {
      expect(parseTableReference(bad)).toBeNull();
    }
  });

  it('quotes any name so that it can only be a name', () => {
    expect(quoteIdent('orders')).toBe('"orders"');
    expect(quoteIdent('Odd Name')).toBe('"Odd Name"');
    expect(quoteIdent('x"; DROP TABLE t; --')).toBe('"x""; DROP TABLE t; --"');
  });
});

describe('columns', () => {
  const table: SourceTable = {
    schema: 'public',
    name: 't',
    quoted: '"public"."t"',
    display: 'public.t',
    columns: ['id', 'Name', 'name', 'Email'].map((name) => ({
      name,
      type: 'text',
      nullable: true,
      category: 'S',
      quoted: quoteIdent(name),
    })),
  };

  it('match exactly first, then case-insensitively only when unambiguous', () => {
    expect(findColumn(table, 'Name')?.name).toBe('Name');
    expect(findColumn(table, 'name')?.name).toBe('name');
    expect(findColumn(table, 'NAME')).toBeNull();
    expect(findColumn(table, 'email')?.name).toBe('Email');
    expect(findColumn(table, 'ID')?.name).toBe('id');
    expect(findColumn(table, 'іd')).toBeNull(); // Cyrillic і
  });
});
