import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import {
  LineageJobPathParams,
  LineageJobResponse,
  LineageRunResponse,
  ProductRunsPathParams,
} from './dto/lineage-runs.dto';
import { LineageRunsService } from './lineage-runs.service';

const RUN_ITEMS =
  "Each run carries its state (see `LineageRunState`), `started_at`, `ended_at`, `duration_ms`, the `errorMessage` facet's " +
  'message, its job, its parent run and the products it read and wrote.';

@ApiTags('Lineage runs')
@Controller('spaces/:slug/lineage/jobs')
export class LineageJobsController {
  constructor(private readonly runs: LineageRunsService) {}

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listLineageJobs',
    summary: 'List the OpenLineage jobs of a space',
    description:
      'Every job `(namespace, name)` whose run events reached the space, by namespace then name, with its latest run ' +
      '(the run with the latest event) in its current state. `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: PageOf(LineageJobResponse) })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() page: PageQuery,
  ): Promise<Page<LineageJobResponse>> {
    return this.runs.listJobs(access, page);
  }

  @Get(':job_id/runs')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listLineageJobRuns',
    summary: 'List the runs of an OpenLineage job',
    description:
      `The job's runs, the most recently begun first (by their earliest eventTime). ${RUN_ITEMS} ` +
      'A run that turns FAIL or ABORT raises one `anomaly` alert (severity `high`, `medium` for ABORT; job, run and ' +
      'error in `metadata`) on each of its output products, unless a later run of the job already completed, and ' +
      'emits `lineage.run_failed`; a COMPLETE of the job resolves the alerts of failures before it. ' +
      'A job of another space answers 404. `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: PageOf(LineageRunResponse) })
  @ApiProblems(404, 422)
  listRuns(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: LineageJobPathParams,
    @Query() page: PageQuery,
  ): Promise<Page<LineageRunResponse>> {
    return this.runs.listJobRuns(access, params.job_id, page);
  }
}

@ApiTags('Lineage runs')
@Controller('catalog/spaces/:slug/products')
export class ProductRunsController {
  constructor(private readonly runs: LineageRunsService) {}

  @Get(':product_id/runs')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listProductRuns',
    summary: 'List the OpenLineage runs that read or wrote a product',
    description:
      `Runs whose events named the product as an input or an output, the most recently begun first. ${RUN_ITEMS} ` +
      'A product of another space answers 404. `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: PageOf(LineageRunResponse) })
  @ApiProblems(404, 422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ProductRunsPathParams,
    @Query() page: PageQuery,
  ): Promise<Page<LineageRunResponse>> {
    return this.runs.listProductRuns(access, params.product_id, page);
  }
}
