import { Conflict, DomainError } from '../../common/errors/domain-error';
import type { RuleProblem } from './policy-rules';

export class PolicyNameTaken extends Conflict {
  constructor(name: string) {
    super(`A policy named "${name}" already exists in this space.`, 'policy_name_taken');
  }
}

/** 422 naming where the CEL rule is wrong. */
export class InvalidRule extends DomainError {
  constructor(problem: RuleProblem) {
    const detail =
      `rule_expression is not a valid boolean CEL rule at position ${problem.position} ` +
      `(line ${problem.line}, column ${problem.column}): ${problem.message}.`;
    super(422, 'validation', 'Unprocessable Content', detail, {
      code: 'invalid_rule',
      errors: [{ field: 'rule_expression', message: detail }],
      position: problem.position,
      line: problem.line,
      column: problem.column,
    });
  }
}
