import { ALERT_EXPLAIN_CASES } from './alert-explain.cases';
import { CONNECTION_TEST_CASES } from './connection-test.cases';
import type { EvalCase } from './eval-case';

/** The deterministic eval suite: fixed cases per AI feature, in run order. */
export const EVAL_CASES: readonly EvalCase[] = [...ALERT_EXPLAIN_CASES, ...CONNECTION_TEST_CASES];

export type { EvalCase, EvalOutcome } from './eval-case';
