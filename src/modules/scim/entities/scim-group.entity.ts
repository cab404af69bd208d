import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A group as the identity provider pushes it: any name, renamable. What it
 * grants comes from its role mappings (ScimGroupRoleMapping), not its name.
 */
@Entity('scim_groups')
// Unique on lower(display_name): an expression index the migration creates.
@Index('scim_groups_display_name_key', { synchronize: false })
@Index('scim_groups_external_id_idx', ['externalId'])
@Index('scim_groups_created_at_idx', ['createdAt'])
export class ScimGroup {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_8bacda70f9d3c4028b3abe53874' })
  id: string;

  @Column('text')
  displayName: string;

  @Column('text', { nullable: true })
  externalId: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
