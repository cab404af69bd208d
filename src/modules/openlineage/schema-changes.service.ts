import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Page, PageQuery } from '../../common/http/page.dto';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { SchemaChangeResponse } from './dto/schema-change.dto';
import { ProductSchemaChange } from './entities/product-schema-change.entity';

/** The column changes OpenLineage `schema` facets revealed on a product. */
@Injectable()
export class SchemaChangesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly products: ProductDirectoryService,
  ) {}

  async list(access: SpaceAccess, productId: string, page: PageQuery): Promise<Page<SchemaChangeResponse>> {
    const em = this.dataSource.manager;
    // 404 for a product of another space, as every product route.
    await this.products.getInSpace(em, access.space.id, productId);
    const [rows, total] = await em.getRepository(ProductSchemaChange).findAndCount({
      where: { productId },
      order: { changedAt: 'DESC', id: 'ASC' },
      skip: page.skip ?? 0,
      take: page.limit ?? 50,
    });
    return {
      items: rows.map((row) => ({
        id: row.id,
        product_id: row.productId,
        changed_at: row.changedAt.toISOString(),
        added: row.added.map((c) => ({ name: c.name, type: c.type })),
        removed: row.removed.map((c) => ({ name: c.name, type: c.type })),
        changed: row.changed.map((c) => ({
          name: c.name,
          type: c.type,
          previous_type: c.previous_type ?? null,
        })),
        run_id: row.runId,
        job:
          row.jobNamespace !== null && row.jobName !== null
            ? { namespace: row.jobNamespace, name: row.jobName }
            : null,
      })),
      total,
    };
  }
}
