import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export type IdempotencyKeyStatus = 'running' | 'done';

/**
 * One `Idempotency-Key` a caller used on a POST, with the first response to
 * replay. Found by (scope, key); rows past `expires_at` count as absent and
 * are swept hourly.
 */
@Entity('idempotency_keys')
@Index('idempotency_keys_expires_idx', ['expiresAt'])
export class IdempotencyKey {
  /** `api_key:<id>` or `user:<id>`: a key means nothing outside its caller. */
  @PrimaryColumn('text')
  scope: string;

  @PrimaryColumn('text')
  key: string;

  /** SHA-256 of the method, path and canonical body of the first request. */
  @Column('text')
  fingerprint: string;

  @Column('text', { default: 'running' })
  status: IdempotencyKeyStatus;

  /** The claim of the request that runs (or ran) under this key; fences its outcome. */
  @Column('uuid')
  claimToken: string;

  /** While running: a process that died holding the key gives it up when this passes. */
  @Column('timestamptz', { nullable: true })
  lockedUntil: Date | null;

  @Column('int', { nullable: true })
  responseStatus: number | null;

  /** The response's kept headers and body, sealed (a response may carry a secret shown once). */
  @Column('text', { nullable: true })
  responseSealed: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;
}
