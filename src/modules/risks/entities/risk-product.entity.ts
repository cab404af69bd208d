import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Product } from '../../catalog/entities/product.entity';
import { Risk } from './risk.entity';

/** A product a risk is linked to; deleting either side removes the link. */
@Entity('risk_products')
@Index('risk_products_product_idx', ['productId', 'riskId'])
export class RiskProduct {
  @PrimaryColumn('uuid')
  riskId: string;

  @PrimaryColumn('uuid')
  productId: string;

  @ManyToOne(() => Risk, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'risk_id', foreignKeyConstraintName: 'risk_products_risk_fk' })
  risk?: Risk;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'risk_products_product_fk' })
  product?: Product;
}
