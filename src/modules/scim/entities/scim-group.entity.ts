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

/** A SCIM group: the members of one space holding one role (`<space-slug>:<role>`). */
@Entity('scim_groups')
@Index('scim_groups_space_role_key', ['spaceId', 'role'], { unique: true })
@Index('scim_groups_external_id_idx', ['externalId'])
@Index('scim_groups_created_at_idx', ['createdAt'])
export class ScimGroup {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'scim_groups_space_fk' })
  space?: Space;

  @Column('text')
  role: SpaceRoleName;

  @Column('text', { nullable: true })
  externalId: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
