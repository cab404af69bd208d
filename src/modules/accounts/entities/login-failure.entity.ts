import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/** A failed sign-in for an email (known or not), for the brute-force lockout. */
@ControlPlaneEntity()
@Entity('login_failures')
@Index('login_failures_email_idx', ['email', 'failedAt'])
export class LoginFailure {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  email: string;

  @Column('timestamptz', { default: () => 'now()' })
  failedAt: Date;

  @Column('text', { nullable: true })
  ip: string | null;
}
