import type { SpaceRoleName } from '../../common/permissions/space-access.port';
import type { User } from '../users/entities/user.entity';
import { MemberResponse, SpaceResponse } from './dto/space-responses.dto';
import type { SpaceMembership } from './entities/space-membership.entity';
import type { Space } from './entities/space.entity';
import { featuresWithDefaults } from './space-features';
import type { GroupGrantRow } from './membership-roles.queries';

export function toSpaceResponse(space: Space, role: SpaceRoleName | null): SpaceResponse {
  return {
    id: space.id,
    name: space.name,
    slug: space.slug,
    description: space.description,
    features: featuresWithDefaults(space.features),
    role,
    created_at: space.createdAt.toISOString(),
    updated_at: space.updatedAt.toISOString(),
  };
}

export function toMemberResponse(
  membership: SpaceMembership,
  user: User,
  groupGrants: GroupGrantRow[],
): MemberResponse {
  return {
    user_id: user.id,
    email: user.email,
    full_name: user.fullName,
    role: membership.role,
    direct_role: membership.directRole,
    granted_by: [
      ...(membership.directRole ? [{ source: 'direct' as const, role: membership.directRole }] : []),
      ...groupGrants.map((g) => ({
        source: 'scim_group' as const,
        role: g.role,
        group_id: g.group_id,
        group_name: g.group_name,
      })),
    ],
    is_active: user.isActive,
    joined_at: membership.createdAt.toISOString(),
  };
}
