import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

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
}

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
      '`invalid_host`, `host_too_long`, `local_host_name`, `private_address`, `blocked_address` or `metadata_host`.',
    example: 'private_address',
  })
  reason?: string;
}

export class ValidationProblem extends ProblemDetails {
  @ApiProperty({ type: FieldErrorSchema, isArray: true })
  errors: FieldErrorSchema[];
}
