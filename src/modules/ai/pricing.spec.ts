import { costOf } from './pricing';

describe('costOf', () => {
  it('prices known models per million tokens', () => {
    expect(costOf('gpt-4o', 1_000_000, 1_000_000)).toEqual({ usd: 12.5, priced: true });
    expect(costOf('gpt-4o-mini', 1000, 500)).toEqual({ usd: 0.00045, priced: true });
  });

  it('ignores dated suffixes and prefers the longest name', () => {
    expect(costOf('gpt-4o-mini-2024-07-18', 1_000_000, 0).usd).toBe(0.15);
    expect(costOf('claude-3-5-haiku-20241022', 1_000_000, 0).usd).toBe(0.8);
  });

  it('costs unknown models nothing and says so', () => {
    expect(costOf('my-local-llama', 1000, 1000)).toEqual({ usd: 0, priced: false });
  });
});
