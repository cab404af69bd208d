import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NotFound } from '../../common/errors/domain-error';
import type { Page, PageQuery } from '../../common/http/page.dto';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { LineageJobResponse, LineageRunResponse } from './dto/lineage-runs.dto';
import { LineageRunsQueries } from './lineage-runs.queries';
import { toJobResponse, toRunResponse } from './lineage-runs.mapper';

/** The reads of run health: a space's jobs, a job's runs, a product's runs. */
@Injectable()
export class LineageRunsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly queries: LineageRunsQueries,
    private readonly products: ProductDirectoryService,
  ) {}

  async listJobs(access: SpaceAccess, page: PageQuery): Promise<Page<LineageJobResponse>> {
    const em = this.dataSource.manager;
    const rows = await this.queries.jobsPage(em, access.space.id, page.skip ?? 0, page.limit ?? 50);
    const total = await this.queries.jobCount(em, access.space.id);
    return { items: rows.map(toJobResponse), total };
  }

  async listJobRuns(access: SpaceAccess, jobId: string, page: PageQuery): Promise<Page<LineageRunResponse>> {
    const em = this.dataSource.manager;
    if (!(await this.queries.jobExists(em, access.space.id, jobId))) throw new NotFound('job', jobId);
    const rows = await this.queries.runsOfJob(em, jobId, page.skip ?? 0, page.limit ?? 50);
    const total = await this.queries.runCountOfJob(em, jobId);
    const datasets = await this.queries.datasetsOf(
      em,
      rows.map((r) => r.id),
    );
    return { items: rows.map((r) => toRunResponse(r, datasets)), total };
  }

  async listProductRuns(
    access: SpaceAccess,
    productId: string,
    page: PageQuery,
  ): Promise<Page<LineageRunResponse>> {
    const em = this.dataSource.manager;
    const [product] = await this.products.namesOf(em, [productId], access.space.id);
    if (!product) throw new NotFound('product', productId);
    const rows = await this.queries.runsOfProduct(em, productId, page.skip ?? 0, page.limit ?? 50);
    const total = await this.queries.runCountOfProduct(em, productId);
    const datasets = await this.queries.datasetsOf(
      em,
      rows.map((r) => r.id),
    );
    return { items: rows.map((r) => toRunResponse(r, datasets)), total };
  }
}
