import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { User } from '../../users/entities/user.entity';
import { Product } from './product.entity';

export const ACCESS_LEVELS = ['read', 'write'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

/** Stored states; `expired` is derived on read from an approved grant's `expiresAt`. */
export const ACCESS_REQUEST_STATES = ['pending', 'approved', 'rejected'] as const;
export type AccessRequestState = (typeof ACCESS_REQUEST_STATES)[number];

@Entity('access_requests')
@Index('access_requests_space_idx', ['spaceId', 'status', 'createdAt'])
@Index('access_requests_product_idx', ['productId', 'requesterId'])
@Index('access_requests_requester_idx', ['requesterId'])
export class AccessRequest {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('uuid')
  productId: string;

  @Column('uuid')
  requesterId: string;

  @Column('text')
  accessLevel: AccessLevel;

  @Column('text')
  justification: string;

  /** What the requester asked for (UTC); the grant's actual end is `expiresAt`. */
  @Column('timestamptz', { nullable: true })
  requestedUntil: Date | null;

  @Column('text', { default: 'pending' })
  status: AccessRequestState;

  /** When an approved grant ends (UTC); null means it does not expire. */
  @Column('timestamptz', { nullable: true })
  expiresAt: Date | null;

  @Column('uuid', { nullable: true })
  decidedBy: string | null;

  @Column('timestamptz', { nullable: true })
  decidedAt: Date | null;

  @Column('text', { nullable: true })
  rejectionReason: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'access_requests_product_fk' })
  product?: Product;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'requester_id', foreignKeyConstraintName: 'access_requests_requester_fk' })
  requester?: User;
}
