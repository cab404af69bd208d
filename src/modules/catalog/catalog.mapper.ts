import type { User } from '../users/entities/user.entity';
import { AccessRequestResponse } from './dto/access-request.dto';
import { PersonRef } from '../../common/http/person-ref.dto';
import type { AccessRequest } from './entities/access-request.entity';

export function personRef(user: Pick<User, 'id' | 'fullName'>): PersonRef {
  return { id: user.id, full_name: user.fullName };
}

/** `expired` is derived: an approved grant whose end has passed. */
export function effectiveStatus(request: AccessRequest, now: Date): string {
  if (request.status === 'approved' && request.expiresAt && request.expiresAt <= now) return 'expired';
  return request.status;
}

export function toAccessRequestResponse(
  request: AccessRequest,
  productName: string,
  users: Map<string, User>,
  now: Date,
): AccessRequestResponse {
  const status = effectiveStatus(request, now);
  const requester = users.get(request.requesterId);
  const decider = request.decidedBy ? users.get(request.decidedBy) : undefined;
  return {
    id: request.id,
    space_id: request.spaceId,
    product_id: request.productId,
    product_name: productName,
    requester: requester ? personRef(requester) : { id: request.requesterId, full_name: '' },
    access_level: request.accessLevel,
    justification: request.justification,
    requested_until: request.requestedUntil?.toISOString() ?? null,
    status,
    is_active: status === 'approved',
    expires_at: request.expiresAt?.toISOString() ?? null,
    decided_by: decider
      ? personRef(decider)
      : request.decidedBy
        ? { id: request.decidedBy, full_name: '' }
        : null,
    decided_at: request.decidedAt?.toISOString() ?? null,
    rejection_reason: request.rejectionReason,
    created_at: request.createdAt.toISOString(),
    updated_at: request.updatedAt.toISOString(),
  };
}
