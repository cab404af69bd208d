import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { AiProvider } from './ai-config.entity';

/**
 * A named model setting a feature can be routed to. Credentials are
 * optional: without its own key and base URL a profile uses the provider
 * configuration's, when it names the same provider.
 */
@Entity('ai_model_profiles')
@Index('ai_model_profiles_fallback_idx', ['fallbackProfileId'])
export class AiModelProfile {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text', { unique: true })
  name: string;

  @Column('text')
  provider: AiProvider;

  @Column('text')
  modelName: string;

  @Column('double precision', { nullable: true })
  temperature: number | null;

  @Column('integer', { nullable: true })
  maxTokens: number | null;

  @Column('uuid', { nullable: true })
  fallbackProfileId: string | null;

  @ManyToOne(() => AiModelProfile, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'fallback_profile_id', foreignKeyConstraintName: 'ai_model_profiles_fallback_fk' })
  fallbackProfile?: AiModelProfile;

  @Column('text', { nullable: true, select: false })
  apiKeySealed: string | null;

  @Column('text', { nullable: true })
  apiBaseUrl: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
