import { parseHypotheses } from './hypotheses';

describe('parseHypotheses', () => {
  const h = (over: Record<string, unknown> = {}) => ({
    cause: 'Late load',
    confidence: 0.4,
    evidence: ['run at 02:00'],
    ...over,
  });

  it('answers valid hypotheses most confident first, evidence as a list', () => {
    expect(
      parseHypotheses({ hypotheses: [h(), h({ cause: 'Schema drift', confidence: 0.9, evidence: 'one' })] }),
    ).toEqual({
      hypotheses: [
        { cause: 'Schema drift', confidence: 0.9, evidence: ['one'] },
        { cause: 'Late load', confidence: 0.4, evidence: ['run at 02:00'] },
      ],
    });
  });

  it.each([
    [null, /not a JSON object/],
    [[h()], /not a JSON object/],
    [{}, /not a list/],
    [{ hypotheses: [] }, /empty/],
    [{ hypotheses: Array.from({ length: 6 }, () => h()) }, /more than 5/],
    [{ hypotheses: ['x'] }, /not an object/],
    [{ hypotheses: [h({ cause: ' ' })] }, /cause/],
    [{ hypotheses: [h({ confidence: 1.5 })] }, /confidence/],
    [{ hypotheses: [h({ confidence: '0.5' })] }, /confidence/],
    [{ hypotheses: [h({ evidence: [1] })] }, /evidence/],
    [{ hypotheses: [h({ evidence: undefined })] }, /evidence/],
  ])('refuses %j', (json, error) => {
    const result = parseHypotheses(json);
    expect('error' in result && result.error).toMatch(error);
  });
});
