import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { AiModelProfile } from './ai-model-profile.entity';

/** Which profile serves a feature; a feature without a route uses the provider configuration. */
@Entity('ai_model_routes')
@Index('ai_model_routes_profile_idx', ['profileId'])
export class AiModelRoute {
  @PrimaryColumn('text')
  feature: string;

  @Column('uuid')
  profileId: string;

  @ManyToOne(() => AiModelProfile, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'profile_id', foreignKeyConstraintName: 'ai_model_routes_profile_fk' })
  profile?: AiModelProfile;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
