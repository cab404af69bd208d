import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity';

/** A user's guided-tour state; the checklist itself is derived from real data on each read. */
@Entity('onboarding_states')
export class OnboardingState {
  @PrimaryColumn('uuid')
  userId: string;

  @OneToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'onboarding_states_user_fk' })
  user?: User;

  @Column('text', { array: true, default: () => `'{}'` })
  dismissedTours: string[];

  /** The whole checklist was dismissed. */
  @Column('boolean', { default: false })
  dismissed: boolean;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
