import { ApiKeyResponse } from './dto/api-key-responses.dto';
import { ApiKey } from './entities/api-key.entity';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function toApiKeyResponse(key: ApiKey): ApiKeyResponse {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    instance_id: key.instanceId,
    rate_limit_tier: key.rateLimitTier,
    created_at: key.createdAt.toISOString(),
    last_used_at: iso(key.lastUsedAt),
    expires_at: iso(key.expiresAt),
    revoked_at: iso(key.revokedAt),
  };
}
