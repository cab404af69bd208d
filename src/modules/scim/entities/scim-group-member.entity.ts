import { CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity';
import { ScimGroup } from './scim-group.entity';

/** A user in a SCIM group, as the identity provider sent it. */
@Entity('scim_group_members')
@Index('scim_group_members_user_idx', ['userId', 'groupId'])
export class ScimGroupMember {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'scim_group_members_pkey' })
  groupId: string;

  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'scim_group_members_pkey' })
  userId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => ScimGroup, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'group_id', foreignKeyConstraintName: 'scim_group_members_group_fk' })
  group?: ScimGroup;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'scim_group_members_user_fk' })
  user?: User;
}
