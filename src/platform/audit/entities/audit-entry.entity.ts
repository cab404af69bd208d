import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Who did what to which resource, from where and with which credential. */
@Entity('audit_log')
@Index('audit_log_created_idx', ['createdAt'])
@Index('audit_log_actor_idx', ['actorId', 'createdAt'])
@Index('audit_log_resource_idx', ['resourceType', 'resourceId'])
@Index('audit_log_action_idx', ['action', 'createdAt'])
@Index('audit_log_space_idx', ['spaceId', 'createdAt'])
export class AuditEntry {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  action: string;

  @Column('uuid', { nullable: true })
  actorId: string | null;

  /** The superadmin behind an impersonation token. */
  @Column('uuid', { nullable: true })
  impersonatorId: string | null;

  /** `session:<id>`, `api_key:<id>` or null for the system. */
  @Column('text', { nullable: true })
  credential: string | null;

  @Column('text')
  resourceType: string;

  @Column('text', { nullable: true })
  resourceId: string | null;

  @Column('uuid', { nullable: true })
  spaceId: string | null;

  @Column('text', { nullable: true })
  ip: string | null;

  @Column('jsonb', { default: () => `'{}'` })
  details: Record<string, unknown>;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
