import type { InstanceHealth } from '../../database/instance-databases.registry';
import { AvailableInstanceResponse, InstanceResponse } from './dto/instance.dto';
import { Instance } from './entities/instance.entity';

export function toInstanceResponse(instance: Instance, health: InstanceHealth): InstanceResponse {
  return {
    id: instance.id,
    slug: instance.slug,
    name: instance.name,
    status: health,
    database_url_set: !!instance.databaseUrlSealed,
    created_at: instance.createdAt.toISOString(),
  };
}

export function toAvailableInstanceResponse(
  instance: Instance,
  health: InstanceHealth,
  currentId: string,
): AvailableInstanceResponse {
  return {
    id: instance.id,
    slug: instance.slug,
    name: instance.name,
    status: health,
    is_current: instance.id === currentId,
  };
}
