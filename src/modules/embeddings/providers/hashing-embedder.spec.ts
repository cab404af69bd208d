import { cosine, norm } from '../vector-math';
import { hashingEmbed, tokenize } from './hashing-embedder';

describe('hashingEmbed', () => {
  it('answers a unit vector of the asked size', () => {
    for (const dimensions of [8, 384, 1536]) {
      const vector = hashingEmbed('Customer orders, daily snapshot', dimensions);
      expect(vector).toHaveLength(dimensions);
      expect(norm(vector)).toBeCloseTo(1, 6);
    }
  });

  it('is deterministic', () => {
    expect(hashingEmbed('Revenue by region', 384)).toEqual(hashingEmbed('Revenue by region', 384));
  });

  it('folds case and accents and ignores punctuation', () => {
    expect(hashingEmbed('Café Orders!', 64)).toEqual(hashingEmbed('cafe   orders', 64));
  });

  it('puts texts that share words closer than unrelated ones', () => {
    const orders = hashingEmbed('customer orders placed in the web shop', 384);
    const similar = hashingEmbed('orders of customers from the shop', 384);
    const unrelated = hashingEmbed('wind turbine vibration telemetry', 384);
    expect(cosine(orders, similar)).toBeGreaterThan(0.4);
    expect(cosine(orders, similar)).toBeGreaterThan(cosine(orders, unrelated) + 0.3);
  });

  it('matches misspellings through character trigrams', () => {
    const right = hashingEmbed('warehouse', 384);
    const typo = hashingEmbed('warehuose', 384);
    const other = hashingEmbed('marketing', 384);
    expect(cosine(right, typo)).toBeGreaterThan(cosine(right, other));
  });

  it('gives a zero vector for text without words', () => {
    const vector = hashingEmbed(' -- !! ', 16);
    expect(vector.every((x) => x === 0)).toBe(true);
  });
});

describe('tokenize', () => {
  it('splits on non-letters and keeps digits and other scripts', () => {
    expect(tokenize('GDPR-2024 Übersicht, 顧客 data_set')).toEqual([
      'gdpr',
      '2024',
      'ubersicht',
      '顧客',
      'data',
      'set',
    ]);
  });
});
