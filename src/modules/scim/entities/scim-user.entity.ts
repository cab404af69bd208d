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
export class ScimUser {
  @PrimaryColumn('uuid')
  userId: string;

  @OneToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'scim_users_user_fk' })
  user?: User;

  @Column('text', { nullable: true })
  externalId: string | null;

  /** Deleted through SCIM: the account stays, deactivated, but SCIM no longer shows it. */
  @Column('timestamptz', { nullable: true })
  deletedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
