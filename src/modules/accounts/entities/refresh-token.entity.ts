import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Session } from './session.entity';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/**
 * Every refresh token ever issued, by hash. A rotated token stays so that
 * presenting it again is recognised as reuse and ends the session.
 */
@ControlPlaneEntity()
@Entity('refresh_tokens')
@Index('refresh_tokens_session_idx', ['sessionId'])
export class RefreshToken {
  @PrimaryColumn('text')
  tokenHash: string;

  @Column('uuid')
  sessionId: string;

  @ManyToOne(() => Session, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'session_id', foreignKeyConstraintName: 'refresh_tokens_session_fk' })
  session?: Session;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;

  @Column('timestamptz', { nullable: true })
  rotatedAt: Date | null;
}
