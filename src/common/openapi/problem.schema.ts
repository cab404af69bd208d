import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class FieldErrorSchema {
  @ApiProperty({
    example: 'email',
    description:
      'A query or path parameter, or a body property: nested properties joined with dots, list items named by their ' +
      'index (`query.filters.0.column`).',
  })
  field: string;

  @ApiProperty({
    example: 'email must be an email address',
    description: 'A sentence; `<field> is required.` for a required field that was left out.',
  })
  message: string;

  @ApiPropertyOptional({
    description:
      'A stable machine-readable reason, where the rule has one: a URL or host field refused by the outbound-target ' +
      'policy says `invalid_url`, `url_too_long`, `scheme_not_allowed`, `userinfo_not_allowed`, `fragment_not_allowed`, ' +
      '`invalid_host`, `host_too_long`, `local_host_name`, `private_address`, `blocked_address`, `metadata_host` or ' +
      "`host_not_allowed` (a chat channel's URL off its platform's webhook hosts).",
    example: 'private_address',
  })
  reason?: string;
}

/**
 * An RFC 9457 problem. Beside the standard members, the extension members
 * the server sends (each only on the problems that name it; see the
 * `DomainError` subclasses) are listed here: a response carries no member
 * this schema does not name.
 */
export class ProblemDetails {
  @ApiProperty({ description: 'URI of the problem type.', example: 'urn:verity:problem:not-found' })
  type: string;

  @ApiProperty({ example: 'Not Found' })
  title: string;

  @ApiProperty({ type: 'integer', example: 404 })
  status: number;

  @ApiProperty({ description: 'A human-readable sentence.', example: 'No product with id … was found.' })
  detail: string;

  @ApiProperty({ description: 'The request path.', example: '/api/v1.0/users/…' })
  instance: string;

  @ApiPropertyOptional({ description: 'A stable machine-readable code.', example: 'not_found' })
  code?: string;

  @ApiPropertyOptional({
    type: FieldErrorSchema,
    isArray: true,
    description:
      'Each invalid field: always on a 422 `validation_failed`, and on the other problems that name fields (a 422 `invalid_rule` or `unsafe_query`, a 400 `invalid_tool_config`).',
  })
  errors?: FieldErrorSchema[];

  @ApiPropertyOptional({ description: '404: the kind of resource not found.', example: 'space' })
  resource?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: '429: seconds to wait, as in `Retry-After`.',
    example: 12,
  })
  retry_after?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: '422 `invalid_rule`: the offset of the CEL rule’s error.',
  })
  position?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: '422 `invalid_rule`: the line of the error (from 1).',
  })
  line?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: '422 `invalid_rule`: the column of the error (from 1).',
  })
  column?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: '409 `instance_not_empty`: how many spaces the instance still holds.',
  })
  spaces?: number;

  @ApiPropertyOptional({
    description:
      '503 `instance_database_unavailable`: the id of the instance whose database is down (`being configured` while a new instance is created).',
  })
  instance_id?: string;

  @ApiPropertyOptional({ description: '500: the request id to quote when reporting the error.' })
  request_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'AI problems: the AI log entry of the call.' })
  log_id?: string;

  @ApiPropertyOptional({ description: '429 `budget_exceeded`: the AI entry point whose budget is used up.' })
  entry_point_id?: string;

  @ApiPropertyOptional({
    description:
      '429 `budget_exceeded`: which budget (such as `daily_tokens`); 409 `web_search_quota_exhausted`: the number of searches a task may make.',
    anyOf: [{ type: 'string' }, { type: 'integer' }],
  })
  limit?: string | number;

  @ApiPropertyOptional({
    format: 'date-time',
    description: '429 `budget_exceeded`: when the budget resets.',
  })
  resets_at?: string;

  @ApiPropertyOptional({
    type: [String],
    description: '422 `ai_input_blocked`: the variables that carried instructions aimed at the model.',
  })
  variables?: string[];

  @ApiPropertyOptional({
    type: [String],
    description: '409 `capability_not_ready`: why the capability is not usable.',
  })
  readiness_errors?: string[];

  @ApiPropertyOptional({ description: '422 `alert_not_explainable`: the type of the alert.' })
  alert_type?: string;

  @ApiPropertyOptional({ description: '409 `consent_already_decided`: the decision already taken.' })
  consent_status?: string;
}
