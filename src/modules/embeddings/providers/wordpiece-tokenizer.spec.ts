import { tinyTokenizerJson, TINY_VOCAB } from '../../../../test/support/local-model';
import { MalformedModel } from './safetensors';
import { WordPieceTokenizer } from './wordpiece-tokenizer';

const tokenizer = WordPieceTokenizer.fromJson(tinyTokenizerJson());
const tokens = (text: string) => tokenizer.encode(text).map((id) => TINY_VOCAB[id]);

function withPart(part: Record<string, unknown>): Record<string, unknown> {
  return { ...tinyTokenizerJson(), ...part };
}

describe('WordPieceTokenizer', () => {
  it('knows every id of the vocabulary and added tokens', () => {
    expect(tokenizer.size).toBe(TINY_VOCAB.length);
    expect(TINY_VOCAB[tokenizer.unkId]).toBe('[UNK]');
  });

  it('normalises like BERT: control characters dropped, whitespace unified, accents stripped, lower case', () => {
    expect(tokenizer.normalize('Café\u0000 Ledger\u200b\tÜBER\u00a0x')).toBe('cafe ledger uber x');
    expect(tokenizer.normalize('数据')).toBe(' 数  据 ');
  });

  it('keeps accents when strip_accents is false, and everything when there is no normalizer', () => {
    const keep = WordPieceTokenizer.fromJson(
      withPart({
        normalizer: { type: 'BertNormalizer', lowercase: true, strip_accents: false },
      }),
    );
    expect(keep.normalize('Café')).toBe('café');
    expect(WordPieceTokenizer.fromJson(withPart({ normalizer: null })).normalize('Café')).toBe('Café');
  });

  it('splits on whitespace and punctuation, each mark a word of its own', () => {
    expect(tokenizer.preTokenize("invoice,payment!  it's a-b $5 (x)")).toEqual([
      'invoice',
      ',',
      'payment',
      '!',
      'it',
      "'",
      's',
      'a',
      '-',
      'b',
      '$',
      '5',
      '(',
      'x',
      ')',
    ]);
    expect(tokenizer.preTokenize('«rain»—wind')).toEqual(['«', 'rain', '»', '—', 'wind']);
  });

  it('cuts words greedily into the longest pieces, later ones with the ## prefix', () => {
    expect(tokens('payments')).toEqual(['payment', '##s']);
    expect(tokens('Paying storms')).toEqual(['pay', '##ing', 'storm', '##s']);
    expect(tokens('PAYROLL')).toEqual(['payroll']);
    expect(tokens('Café invoices.')).toEqual(['cafe', 'invoice', '##s', '.']);
  });

  it('makes a whole word [UNK] when any part of it has no piece, or when it is too long', () => {
    expect(tokens('payx rain')).toEqual(['[UNK]', 'rain']);
    expect(tokens('zebra')).toEqual(['[UNK]']);
    const short = WordPieceTokenizer.fromJson(
      withPart({
        model: { ...(tinyTokenizerJson().model as object), max_input_chars_per_word: 5 },
      }),
    );
    expect(short.encode('payment').map((id) => TINY_VOCAB[id])).toEqual(['[UNK]']);
    expect(short.encode('storm').map((id) => TINY_VOCAB[id])).toEqual(['storm']);
  });

  it('adds no special tokens', () => {
    expect(tokens('')).toEqual([]);
    expect(tokens('rain')).toEqual(['rain']);
  });

  describe('refuses what it does not support', () => {
    const model = tinyTokenizerJson().model as Record<string, unknown>;
    const refuses = (json: unknown, message: RegExp) => {
      expect(() => WordPieceTokenizer.fromJson(json)).toThrow(MalformedModel);
      expect(() => WordPieceTokenizer.fromJson(json)).toThrow(message);
    };
    it('other models', () => {
      refuses(withPart({ model: { type: 'BPE', vocab: {}, merges: [] } }), /model is BPE; only WordPiece/);
      refuses(withPart({ model: undefined }), /model is missing/);
      refuses([], /not a JSON object/);
    });
    it('other normalizers and pre-tokenizers', () => {
      refuses(withPart({ normalizer: { type: 'NFC' } }), /normalizer is NFC/);
      refuses(withPart({ pre_tokenizer: { type: 'Metaspace' } }), /pre-tokenizer is Metaspace/);
    });
    it('a vocabulary without the unknown token, with bad ids or gaps', () => {
      refuses(withPart({ model: { ...model, unk_token: '<unk>' } }), /"<unk>" is not in the vocab/);
      refuses(withPart({ model: { ...model, vocab: { '[UNK]': 0, a: -1 } } }), /id of "a"/);
      refuses(
        withPart({ model: { ...model, vocab: { '[UNK]': 0, a: 2 } }, added_tokens: [] }),
        /without gaps/,
      );
    });
  });
});
