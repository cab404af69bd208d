import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Instance } from '../../instances/entities/instance.entity';
import { User } from '../../users/entities/user.entity';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/**
 * One sign-in. Access tokens carry its id (`sid`) and die with it; refresh
 * tokens rotate within it. Impersonation creates a short session of the
 * impersonated user that names the superadmin.
 */
@ControlPlaneEntity()
@Entity('sessions')
@Index('sessions_user_idx', ['userId'])
export class Session {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'sessions_user_fk' })
  user?: User;

  /** The instance its access tokens reach (`ins`); refreshes keep it. */
  @Column('uuid')
  instanceId: string;

  @ManyToOne(() => Instance, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'instance_id', foreignKeyConstraintName: 'sessions_instance_fk' })
  instance?: Instance;

  @Column('uuid', { nullable: true })
  impersonatorId: string | null;

  @Column('text', { nullable: true })
  ip: string | null;

  @Column('text', { nullable: true })
  userAgent: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  /** Pushed forward by each refresh (30 days), fixed for impersonation (15 minutes). */
  @Column('timestamptz')
  expiresAt: Date;

  @Column('timestamptz', { nullable: true })
  revokedAt: Date | null;

  @Column('text', { nullable: true })
  revokedReason: string | null;
}
