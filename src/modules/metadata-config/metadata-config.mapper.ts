import { LevelResponse, StatusResponse } from './dto/metadata-responses.dto';
import type { CriticalityLevel } from './entities/criticality-level.entity';
import type { MaintenanceStatus } from './entities/maintenance-status.entity';
import type { MetadataValue } from './entities/metadata-value.base';
import type { SensitivityLevel } from './entities/sensitivity-level.entity';

export function toLevelResponse(level: CriticalityLevel | SensitivityLevel): LevelResponse {
  return {
    id: level.id,
    name: level.name,
    color: level.color,
    sort_order: level.sortOrder,
    description: level.description,
    created_at: level.createdAt.toISOString(),
    updated_at: level.updatedAt.toISOString(),
  };
}

export function toStatusResponse(status: MaintenanceStatus): StatusResponse {
  return {
    id: status.id,
    name: status.name,
    slug: status.slug,
    color: status.color,
    sort_order: status.sortOrder,
    created_at: status.createdAt.toISOString(),
    updated_at: status.updatedAt.toISOString(),
  };
}

export function toValueResponse(value: MetadataValue, hasSlug: boolean): LevelResponse | StatusResponse {
  return hasSlug
    ? toStatusResponse(value as MaintenanceStatus)
    : toLevelResponse(value as CriticalityLevel | SensitivityLevel);
}
