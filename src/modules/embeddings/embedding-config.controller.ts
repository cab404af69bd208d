import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import {
  CreateEmbeddingConfigDto,
  EmbeddingConfigResponse,
  ReindexResponse,
  ReindexStatusResponse,
  TestEmbeddingResponse,
  UpdateEmbeddingConfigDto,
} from './dto/embedding-config.dto';
import { EmbeddingConfigService } from './embedding-config.service';
import { ReindexService } from './reindex.service';

const SCOPE =
  'Scope: the instance of the credential. On `default` this is the control-plane (global) configuration ' +
  "(`instance_id` null); on another instance, that instance's override (`instance_id` set), kept in its database, " +
  'which takes precedence over the global one there; without an override an instance reads the global configuration ' +
  "(then the environment's). `X-Instance-Id`, when sent, must name the credential's instance (403).";
const REINDEX =
  'Queues background work on the job runner and answers at once with the item count. Items go in id order, in batches ' +
  '(one provider call each, committed with the run cursor): after a crash the run continues where it stopped and items ' +
  'already done are not redone; items whose text and embedder are unchanged keep their vector without a provider call. ' +
  'A change of provider, model or dimensions drops the vectors of both item types: a successful run returns the ' +
  'configuration to `active` only once the other type was reindexed with the same configuration too, or has nothing ' +
  'to index (until then it stays `pending_reindex`; it is `failed` if that run failed). A run in which items could not ' +
  'be embedded (or the provider failed three batches in a row) ends `failed` and so does the configuration. A run of ' +
  'the same item type already under way ' +
  'is not started twice (the answer names it). 409 while embeddings are disabled.';

@ApiTags('Embedding configuration')
@Controller('admin/embedding-config')
export class EmbeddingConfigController {
  constructor(
    private readonly configs: EmbeddingConfigService,
    private readonly reindex: ReindexService,
  ) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getEmbeddingConfig',
    summary: 'Read the effective embedding configuration',
    description:
      'The stored configuration (`source: database`), else the one from EMBEDDING_PROVIDER, EMBEDDING_MODEL, ' +
      'EMBEDDING_DIMENSIONS, EMBEDDING_API_KEY, EMBEDDING_API_BASE_URL and EMBEDDING_ENABLED (`source: environment`; by ' +
      'default the local hashing embedder with 384 dimensions). `vector_store` shows whether pgvector was detected. ' +
      SCOPE,
  })
  @ApiOkResponse({ type: EmbeddingConfigResponse })
  get(): Promise<EmbeddingConfigResponse> {
    return this.configs.get();
  }

  @Post()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'createEmbeddingConfig',
    summary: 'Store the embedding configuration',
    description:
      'One per scope: a second POST answers 409. `model_name` and `dimensions` default per provider. When it embeds ' +
      'differently from the configuration in force before (provider, model or dimensions), the stored vectors are ' +
      'dropped and it starts `pending_reindex`; else `active`. ' +
      SCOPE,
  })
  @ApiCreatedResponse({ type: EmbeddingConfigResponse })
  @ApiProblems(409, 422)
  create(
    @CurrentActor() actor: Actor,
    @Body() dto: CreateEmbeddingConfigDto,
  ): Promise<EmbeddingConfigResponse> {
    return this.configs.create(actor, dto);
  }

  @Patch()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'updateEmbeddingConfig',
    summary: 'Change the embedding configuration',
    description:
      'Partial update of the stored configuration (404 when only the environment configures embeddings). Changing ' +
      '`provider`, `model_name` or `dimensions` moves `status` to `pending_reindex` and drops the stored vectors (sizes ' +
      'and models are never mixed; with pgvector the HNSW index is rebuilt for the new size); other changes keep the ' +
      'status. `api_key: null` removes the key. Changes are audited by field name, never the key. ' +
      SCOPE,
  })
  @ApiOkResponse({ type: EmbeddingConfigResponse })
  @ApiProblems(404, 422)
  update(
    @CurrentActor() actor: Actor,
    @Body() dto: UpdateEmbeddingConfigDto,
  ): Promise<EmbeddingConfigResponse> {
    return this.configs.update(actor, dto);
  }

  @Delete()
  @HttpCode(204)
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'deleteEmbeddingConfig',
    summary: 'Delete the stored embedding configuration',
    description:
      'The environment configuration takes effect again (GET answers `source: environment`); if it embeds differently, ' +
      'the stored vectors are dropped. 404 when none is stored. Deleting an instance override brings back the global ' +
      'configuration for that instance. ' +
      SCOPE,
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(404)
  delete(@CurrentActor() actor: Actor): Promise<void> {
    return this.configs.delete(actor);
  }

  @Post('test-embedding')
  @HttpCode(200)
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'testEmbedding',
    summary: 'Embed a test sentence with the effective configuration',
    description:
      'Even when embeddings are disabled. Always 200: a provider failure answers `success: false` with the reason ' +
      '(never the key); on success `dimensions` is the size of the vector answered. A local model directory that ' +
      'failed to load is loaded again first (its files may have been fixed), and the call waits for the load.',
  })
  @ApiOkResponse({ type: TestEmbeddingResponse })
  testEmbedding(): Promise<TestEmbeddingResponse> {
    return this.configs.testEmbedding();
  }

  @Post('reindex-products')
  @HttpCode(200)
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'reindexProducts',
    summary: 'Re-embed every data product in the background',
    description: REINDEX,
  })
  @ApiOkResponse({ type: ReindexResponse })
  @ApiProblems(409)
  reindexProducts(@CurrentActor() actor: Actor): Promise<ReindexResponse> {
    return this.reindex.start(actor, 'product');
  }

  @Post('reindex-standard-items')
  @HttpCode(200)
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'reindexStandardItems',
    summary: 'Re-embed every published standards page in the background',
    description: `Drafts are not indexed. ${REINDEX}`,
  })
  @ApiOkResponse({ type: ReindexResponse })
  @ApiProblems(409)
  reindexStandardItems(@CurrentActor() actor: Actor): Promise<ReindexResponse> {
    return this.reindex.start(actor, 'standard_page');
  }

  @Get('reindex-status')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'getReindexStatus',
    summary: 'Progress of the reindex runs',
    description:
      'Totals over the latest run of each item type (products, standards pages), with each run in `runs`. ' +
      '`finished_at` is null while a run is queued or running.',
  })
  @ApiOkResponse({ type: ReindexStatusResponse })
  status(): Promise<ReindexStatusResponse> {
    return this.reindex.status();
  }
}
