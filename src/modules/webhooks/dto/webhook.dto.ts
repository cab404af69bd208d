import { ApiProperty } from '@nestjs/swagger';

import { PageQuery } from '../../../common/http/page.dto';

import { SlugParams } from '../../../common/http/slug-params.dto';

import {
  BooleanField,
  StringArrayField,
  StringField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { OUTBOUND_POLICY_NOTE } from '../../../platform/outbound-http/outbound-url-policy';

export class CreateWebhookDto {
  @StringField({
    min: 1,
    max: 2000,
    description: `An HTTPS URL that does not resolve to a private, loopback or link-local address. ${OUTBOUND_POLICY_NOTE}`,
  })
  url: string;

  @StringArrayField({
    minItems: 1,
    maxItems: 100,
    itemMax: 100,
    description: 'Event types from `GET .../webhooks/event-types`.',
  })
  event_types: string[];

  @StringField({
    optional: true,
    max: 200,
    description:
      '`whsec_` followed by base64 of at least 16 random bytes. Generated when left out, and then returned once in this response.',
  })
  secret?: string;

  @BooleanField({ optional: true, default: true })
  is_enabled?: boolean;

  @StringField({ optional: true, max: 500 })
  description?: string;
}

/** Declared apart from create: each field but `description` is documented for the update. */
export class UpdateWebhookDto {
  @StringField({ optional: true, min: 1, max: 2000, description: OUTBOUND_POLICY_NOTE })
  url?: string;

  @StringArrayField({ optional: true, minItems: 1, maxItems: 100, itemMax: 100 })
  event_types?: string[];

  @StringField({
    optional: true,
    max: 200,
    description: 'Replaces the signing secret (same format rule as on create).',
  })
  secret?: string;

  @BooleanField({
    optional: true,
    description: 'Enabling again clears the disabled state and the failure run.',
  })
  is_enabled?: boolean;

  @StringField({ optional: true, max: 500 })
  description?: string;
}

export class WebhookResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) space_id: string;
  @ApiProperty() url: string;
  @ApiProperty() description: string;
  @ApiProperty({ type: String, isArray: true }) event_types: string[];
  @ApiProperty() is_enabled: boolean;
  @ApiProperty({ description: 'Always true: the secret itself is never returned after creation.' })
  secret_set: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) failing_since: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) disabled_at: string | null;
  @ApiProperty({ type: String, nullable: true }) disabled_reason: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class CreatedWebhookResponse extends WebhookResponse {
  @ApiProperty({
    required: false,
    description:
      'The generated signing secret, shown only in this response. Absent when the request supplied its own `secret`: a supplied secret is never returned.',
  })
  secret?: string;
}

export class EventTypeItem {
  @ApiProperty({ example: 'product.created' }) name: string;
  @ApiProperty() description: string;
}

export class EventTypeCategory {
  @ApiProperty({ example: 'catalog' }) category: string;
  @ApiProperty({ type: EventTypeItem, isArray: true }) event_types: EventTypeItem[];
}

export class WebhookTestResponse {
  @ApiProperty() success: boolean;
  @ApiProperty({ type: 'integer', nullable: true }) status_code: number | null;
  @ApiProperty({ type: 'integer' }) response_time_ms: number;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ format: 'uuid', description: 'The logged delivery (its id is the `webhook-id` header).' })
  delivery_id: string;
}

export class DeliveryAttemptResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid', description: 'Also the `webhook-id` header sent.' }) delivery_id: string;
  @ApiProperty() event_type: string;
  @ApiProperty({ type: 'integer' }) attempt: number;
  @ApiProperty({ enum: ['succeeded', 'failed'] }) status: string;
  @ApiProperty({ type: 'integer', nullable: true }) response_code: number | null;
  @ApiProperty({ type: 'integer' }) duration_ms: number;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'], description: 'Where the delivery stands now.' })
  delivery_status: string;
  @ApiProperty({ format: 'date-time' }) started_at: string;
  @ApiProperty({ format: 'date-time' }) finished_at: string;
}

export class ListDeliveriesQuery extends PageQuery {}

export class WebhookParams extends SlugParams {
  @UuidField()
  id: string;
}

export class DeliveryParams extends WebhookParams {
  @UuidField()
  delivery_id: string;
}
