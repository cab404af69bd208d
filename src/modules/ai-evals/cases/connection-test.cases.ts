import { answersExactly, EvalCase } from './eval-case';

export const CONNECTION_TEST_CASES: EvalCase[] = [
  {
    id: 'test_connection.ok',
    feature: 'test_connection',
    promptKey: 'connection_test',
    description: 'The health-check prompt answers the single word OK.',
    variables: {},
    responseFormat: 'text',
    checks: [answersExactly('OK')],
  },
];
