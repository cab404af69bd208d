import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../../users/entities/user.entity';
import { Product } from './product.entity';

export const GOVERNANCE_ROLES = ['owner', 'steward'] as const;
export type GovernanceRole = (typeof GOVERNANCE_ROLES)[number];

/** A product governance role: the user owns or stewards the product. */
@Entity('product_roles')
@Index('product_roles_user_idx', ['userId', 'role'])
export class ProductRole {
  @PrimaryColumn('uuid')
  productId: string;

  @PrimaryColumn('uuid')
  userId: string;

  @PrimaryColumn('text')
  role: GovernanceRole;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'product_roles_product_fk' })
  product?: Product;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'product_roles_user_fk' })
  user?: User;
}
