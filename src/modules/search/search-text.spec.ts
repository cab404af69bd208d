import { escapeHtml, keywordQuery, RAW_CLOSE, RAW_OPEN, renderSnippet } from './search-text';

describe('keywordQuery', () => {
  it('makes the last plain word a prefix term and leaves the rest to websearch_to_tsquery', () => {
    expect(keywordQuery('customer ord')).toEqual({ websearch: 'customer', prefix: "'ord':*" });
    expect(keywordQuery('  ord  ')).toEqual({ websearch: '', prefix: "'ord':*" });
    expect(keywordQuery('données clié')).toEqual({ websearch: 'données', prefix: "'clié':*" });
    expect(keywordQuery('orders 2024')).toEqual({ websearch: 'orders', prefix: "'2024':*" });
  });

  it('keeps operators, phrases and punctuation whole, with no prefix', () => {
    for (const query of [
      'orders -cust', // negated
      '"customer orders"', // closed phrase
      '"customer ord', // open phrase
      'orders or cust', // joined by or: a prefix would turn OR into AND
      'orders or',
      'data-prod',
      "o'brien",
      'a:*',
      'ml_model',
    ]) {
      expect(keywordQuery(query)).toEqual({ websearch: query, prefix: null });
    }
  });

  it('never lets to_tsquery syntax through in the prefix term', () => {
    for (const query of ["a'b", 'a\\b', 'a&b', 'a|b', 'a!b', 'a(b)', 'a:b', 'a<->b', 'a*']) {
      const { prefix } = keywordQuery(`x ${query}`);
      expect(prefix).toBeNull();
    }
  });
});

describe('renderSnippet', () => {
  it('escapes the source and turns the markers into <mark>', () => {
    expect(renderSnippet(`${RAW_OPEN}Orders${RAW_CLOSE} of <b>"Tom" & 'Jerry'</b>`)).toBe(
      '<mark>Orders</mark> of &lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;',
    );
  });

  it('cannot be tricked into markup by text that looks like a marker', () => {
    const snippet = renderSnippet(
      `<mark onclick=x>${RAW_OPEN}hit${RAW_CLOSE}</mark><script>alert(1)</script>`,
    );
    expect(snippet).toBe(
      '&lt;mark onclick=x&gt;<mark>hit</mark>&lt;/mark&gt;&lt;script&gt;alert(1)&lt;/script&gt;',
    );
    expect(snippet.replaceAll('<mark>', '').replaceAll('</mark>', '')).not.toMatch(/[<>]/);
  });

  it('folds whitespace runs, newlines included', () => {
    expect(renderSnippet(`  a\n\n b\t c  `)).toBe('a b c');
  });

  it('escapes every HTML-significant character', () => {
    expect(escapeHtml(`<>&"'`)).toBe('&lt;&gt;&amp;&quot;&#39;');
  });
});
