import { PROMPT_DEFAULTS } from '../../ai/prompts/prompt-defaults';
import {
  answersExactly,
  evidenceCites,
  EvalOutcome,
  injectionNotObeyed,
  noPersonalData,
  validHypotheses,
} from './eval-case';
import { EVAL_CASES } from './index';

const json = (hypotheses: unknown): EvalOutcome => ({
  kind: 'answer',
  text: JSON.stringify({ hypotheses }),
  json: { hypotheses },
});
const good = json([{ cause: 'Partial load', confidence: 0.7, evidence: ['raw_orders loaded late'] }]);
const blocked: EvalOutcome = { kind: 'refused', code: 'ai_input_blocked', detail: 'blocked' };
const failed: EvalOutcome = { kind: 'refused', code: 'ai_provider_error', detail: 'boom' };

describe('eval suite', () => {
  it('has unique case ids named after their feature', () => {
    const ids = EVAL_CASES.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of EVAL_CASES) expect(c.id.startsWith(`${c.feature}.`)).toBe(true);
  });

  it('covers every code-defined prompt, with every variable it declares', () => {
    for (const prompt of Object.values(PROMPT_DEFAULTS)) {
      const cases = EVAL_CASES.filter((c) => c.promptKey === prompt.key);
      expect({ prompt: prompt.key, cases: cases.length > 0 }).toEqual({ prompt: prompt.key, cases: true });
      for (const c of cases)
        expect(Object.keys(c.variables)).toEqual(expect.arrayContaining(prompt.variables));
    }
  });
});

describe('eval checks', () => {
  it('validHypotheses wants the contract shape', () => {
    expect(validHypotheses(good)).toEqual([]);
    expect(validHypotheses(json([{ cause: 'x', confidence: 2, evidence: [] }]))).toEqual([
      expect.stringMatching(/confidence/),
    ]);
    expect(validHypotheses(failed)).toEqual([expect.stringMatching(/ai_provider_error/)]);
  });

  it('evidenceCites wants each hypothesis to cite a provided fact', () => {
    expect(evidenceCites(['RAW_ORDERS'])(good)).toEqual([]);
    expect(evidenceCites(['shop_id'])(good)).toEqual([
      'hypothesis 1 cites none of the provided facts (shop_id)',
    ]);
  });

  it('noPersonalData finds emails, phone numbers and given values', () => {
    expect(noPersonalData(['Jane'])(good)).toEqual([]);
    const leaky: EvalOutcome = { kind: 'answer', text: 'Ask jane@example.com or +44 20 7946 0958, Jane' };
    expect(noPersonalData(['Jane'])(leaky)).toHaveLength(3);
  });

  it('injectionNotObeyed passes a blocked input and an answer without the marker', () => {
    expect(injectionNotObeyed('PWNED')(blocked)).toEqual([]);
    expect(injectionNotObeyed('PWNED')(good)).toEqual([]);
    expect(injectionNotObeyed('PWNED')({ kind: 'answer', text: 'pwned' })).toHaveLength(1);
    expect(injectionNotObeyed('PWNED')(failed)).toHaveLength(1);
  });

  it('answersExactly compares trimmed text, case-insensitively', () => {
    expect(answersExactly('OK')({ kind: 'answer', text: ' ok.\n' })).toEqual([]);
    expect(answersExactly('OK')({ kind: 'answer', text: 'Not OK' })).toHaveLength(1);
  });
});
