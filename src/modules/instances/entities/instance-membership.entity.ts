import { CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity';
import { Instance } from './instance.entity';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/** A user who may sign in to an instance. Every user belongs to `default` without a row. */
@ControlPlaneEntity()
@Entity('instance_memberships')
@Index('instance_memberships_user_idx', ['userId'])
export class InstanceMembership {
  @PrimaryColumn('uuid')
  instanceId: string;

  @PrimaryColumn('uuid')
  userId: string;

  @ManyToOne(() => Instance, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'instance_id', foreignKeyConstraintName: 'instance_memberships_instance_fk' })
  instance?: Instance;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'instance_memberships_user_fk' })
  user?: User;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
