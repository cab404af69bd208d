import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/**
 * The learning-system integration's settings: one row (`id` = `default`) while
 * a superadmin has configured it. The signing secret is sealed with SecretBox.
 */
@ControlPlaneEntity()
@Entity('learning_integrations')
export class LearningIntegration {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { select: false })
  secretSealed: string;

  @Column('boolean', { default: true })
  isEnabled: boolean;

  @Column('uuid', { nullable: true })
  updatedBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
