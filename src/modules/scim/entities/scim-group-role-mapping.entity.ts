import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { SpaceRoleName } from '../../../common/permissions/space-access.port';
import { Space } from '../../spaces/entities/space.entity';
import { User } from '../../users/entities/user.entity';
import { ScimGroup } from './scim-group.entity';

/** A superadmin's decision: the members of a SCIM group hold this role in this space. */
@Entity('scim_group_role_mappings')
@Index('scim_group_role_mappings_group_space_key', ['groupId', 'spaceId'], { unique: true })
@Index('scim_group_role_mappings_space_idx', ['spaceId', 'groupId'])
@Index('scim_group_role_mappings_created_at_idx', ['createdAt'])
export class ScimGroupRoleMapping {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'scim_group_role_mappings_pkey' })
  id: string;

  @Column('uuid')
  groupId: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  role: SpaceRoleName;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => ScimGroup, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'group_id', foreignKeyConstraintName: 'scim_group_role_mappings_group_fk' })
  group?: ScimGroup;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'scim_group_role_mappings_space_fk' })
  space?: Space;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'created_by', foreignKeyConstraintName: 'scim_group_role_mappings_created_by_fk' })
  creator?: User;
}
