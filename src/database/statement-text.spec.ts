import { composedText } from './statement-text';

describe('composedText', () => {
  it('fills the placeholder', () => {
    expect(composedText('SELECT a%X% FROM t', '%X%', ', b')).toBe('SELECT a, b FROM t');
    expect(composedText('SELECT a%X% FROM t', '%X%', '')).toBe('SELECT a FROM t');
  });

  it('keeps dollar signs of the fill as written', () => {
    expect(composedText('SELECT %X%', '%X%', "$1, $$a$$, '$&'")).toBe("SELECT $1, $$a$$, '$&'");
  });

  it('answers the same string for the same template and fill, and keeps templates apart', () => {
    const fill = ['', 'b'].join(', ');
    const first = composedText('SELECT 1%X%', '%X%', fill);
    expect(composedText('SELECT 1%X%', '%X%', `, b`)).toBe(first);
    expect(composedText('SELECT 2%X%', '%X%', fill)).toBe('SELECT 2, b');
  });
});
