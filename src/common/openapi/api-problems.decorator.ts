import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ProblemDetails } from './problem.schema';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request.',
  401: 'Missing, malformed, expired or revoked credential.',
  403: 'The caller lacks the right to do this.',
  404: 'The resource, or the space, does not exist for the caller.',
  409: 'Conflict with the current state (uniqueness or a forbidden state move).',
  413: 'The payload is too large.',
  422: 'The request fails validation (`validation_failed`, with `errors[]`).',
  429: 'Too many requests; see Retry-After.',
  502: 'An upstream peer failed.',
  503: 'A dependency is unavailable.',
  504: 'An upstream peer did not answer in time.',
};

/** Documents the problem-details responses a route can give. */
export function ApiProblems(...statuses: number[]) {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error.',
        content: {
          'application/problem+json': {
            // A 422 is not always a validation failure (an Idempotency-Key reused, an AI input blocked): see `code`.
            schema: { $ref: `#/components/schemas/${ProblemDetails.name}` },
          },
        },
      }),
    ),
  );
}
