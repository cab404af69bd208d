import { IMPACTS, LIKELIHOODS, RISK_TEMPLATES, riskScore, riskTier } from './risk-scoring';

describe('risk scoring', () => {
  it('multiplies the likelihood and impact levels', () => {
    expect(riskScore('rare', 'negligible')).toBe(1);
    expect(riskScore('possible', 'moderate')).toBe(9);
    expect(riskScore('likely', 'major')).toBe(16);
    expect(riskScore('almost_certain', 'severe')).toBe(25);
    expect(riskScore('unlikely', 'severe')).toBe(10);
  });

  it.each([
    [1, 'low'],
    [4, 'low'],
    [5, 'medium'],
    [9, 'medium'],
    [10, 'high'],
    [16, 'high'],
    [17, 'critical'],
    [25, 'critical'],
  ])('gives score %i the tier %s', (score, tier) => {
    expect(riskTier(score)).toBe(tier);
  });

  it('covers every one of the 25 cells with a tier', () => {
    const tiers = LIKELIHOODS.flatMap((l) => IMPACTS.map((i) => riskTier(riskScore(l, i))));
    expect(tiers).toHaveLength(25);
    expect(new Set(tiers)).toEqual(new Set(['low', 'medium', 'high', 'critical']));
  });

  it('has unique template keys', () => {
    expect(new Set(RISK_TEMPLATES.map((t) => t.key)).size).toBe(RISK_TEMPLATES.length);
  });
});
