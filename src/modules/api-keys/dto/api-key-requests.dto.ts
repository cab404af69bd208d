import { PageQuery } from '../../../common/http/page.dto';
import {
  DateTimeField,
  EnumField,
  QueryBooleanField,
  TextField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { RATE_LIMIT_TIERS, RateLimitTier } from '../../../config/app.config';

const TIER_RULE = 'Only a superadmin may choose a tier above `standard` (403 otherwise).';

export class CreateApiKeyDto {
  @TextField({ max: 100, description: 'A label to recognise the key by.', example: 'CI pipeline' })
  name: string;

  @EnumField(RATE_LIMIT_TIERS, {
    optional: true,
    default: 'standard',
    enumName: 'RateLimitTier',
    description: `The key's rate-limit tier. ${TIER_RULE}`,
  })
  rate_limit_tier?: RateLimitTier;

  @DateTimeField({
    optional: true,
    nullable: true,
    description: 'When the key stops working; in the future. Omitted or null: it never expires.',
  })
  expires_at?: Date | null;
}

/** Declared apart from create, which documents a label example and the default tier. */
export class UpdateApiKeyDto {
  @TextField({ optional: true, max: 100 })
  name?: string;

  @EnumField(RATE_LIMIT_TIERS, {
    optional: true,
    enumName: 'RateLimitTier',
    description: `The key's new tier; it applies from the next request. ${TIER_RULE}`,
  })
  rate_limit_tier?: RateLimitTier;
}

export class ListApiKeysQuery extends PageQuery {
  @QueryBooleanField({ default: false, description: 'Also list revoked keys.' })
  include_revoked?: boolean;
}

export class ApiKeyParams {
  @UuidField()
  key_id: string;
}
