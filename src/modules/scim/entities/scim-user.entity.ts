import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  OneToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { User } from '../../users/entities/user.entity';

/** What SCIM keeps beside a user: the identity provider's id for them. */
@Entity('scim_users')
@Index('scim_users_external_id_idx', ['externalId'])
// Unique on lower(user_name): an expression index the migration creates.
@Index('scim_users_user_name_key', { synchronize: false })
export class ScimUser {
  @PrimaryColumn('uuid')
  userId: string;

  @OneToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'scim_users_user_fk' })
  user?: User;

  @Column('text', { nullable: true })
  externalId: string | null;

  /** The identity provider's userName, as sent (unique ignoring case); the account email is apart. */
  @Column('text', { nullable: true })
  userName: string | null;

  /** The enterprise extension's attributes (department, manager, ...), as sent. */
  @Column('jsonb', { default: () => `'{}'` })
  enterprise: Record<string, unknown>;

  /** Deleted through SCIM: the account stays, deactivated, but SCIM no longer shows it. */
  @Column('timestamptz', { nullable: true })
  deletedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
