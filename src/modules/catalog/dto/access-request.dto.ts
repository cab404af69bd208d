import { SlugParams } from '../../../common/http/slug-params.dto';

import { ApiProperty } from '@nestjs/swagger';

import { PageQuery } from '../../../common/http/page.dto';

import { DateTimeField, EnumField, TextField, UuidField } from '../../../common/validation/field.decorators';

import { ACCESS_LEVELS } from '../entities/access-request.entity';

import { PersonRef } from '../../../common/http/person-ref.dto';

export const ACCESS_REQUEST_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;

export class CreateAccessRequestDto {
  @TextField({ max: 5000 })
  justification: string;

  @EnumField(ACCESS_LEVELS, { enumName: 'AccessLevel' })
  access_level: string;

  @DateTimeField({
    optional: true,
    nullable: true,
    description:
      'Until when access is wanted; in the future. Any offset is accepted; stored and answered in UTC.',
  })
  requested_until?: Date | null;
}

export class ApproveAccessRequestDto {
  @DateTimeField({
    optional: true,
    nullable: true,
    description:
      'When the grant ends; in the future. Any offset is accepted; stored and answered in UTC. Null: no expiry. Left out: the requested `requested_until` (422 if that has passed meanwhile), or no expiry when none was asked for.',
  })
  expires_at?: Date | null;
}

export class RejectAccessRequestDto {
  @TextField({ max: 5000 })
  reason: string;
}

export class ListAccessRequestsQuery extends PageQuery {
  @EnumField(ACCESS_REQUEST_STATUSES, { optional: true, enumName: 'AccessRequestStatus' })
  status?: string;

  @UuidField({ optional: true, description: 'Requests for this product only.' })
  product_id?: string;
}

export class AccessRequestParams extends SlugParams {
  @UuidField()
  request_id: string;
}

export class AccessRequestResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  space_id: string;

  @ApiProperty({ format: 'uuid' })
  product_id: string;

  @ApiProperty()
  product_name: string;

  @ApiProperty({ type: PersonRef })
  requester: PersonRef;

  @ApiProperty({ enum: ACCESS_LEVELS, enumName: 'AccessLevel' })
  access_level: string;

  @ApiProperty()
  justification: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  requested_until: string | null;

  @ApiProperty({
    enum: ACCESS_REQUEST_STATUSES,
    enumName: 'AccessRequestStatus',
    description:
      '`pending`, `approved`, `rejected`, or `expired`: an approved grant whose `expires_at` has passed (derived at read time, never stored).',
  })
  status: string;

  @ApiProperty({ description: 'True while the grant is in force: approved and not yet expired.' })
  is_active: boolean;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'End of an approved grant (UTC); null: no expiry.',
  })
  expires_at: string | null;

  @ApiProperty({ type: PersonRef, nullable: true })
  decided_by: PersonRef | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  decided_at: string | null;

  @ApiProperty({ type: String, nullable: true })
  rejection_reason: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
