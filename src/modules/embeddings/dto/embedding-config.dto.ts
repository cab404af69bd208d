import { ApiProperty } from '@nestjs/swagger';
import { BooleanField, EnumField, IntField, StringField } from '../../../common/validation/field.decorators';
import { UpdateType } from '../../../common/validation/update-type';
import { EMBEDDING_PROVIDERS, EMBEDDING_STATUSES } from '../entities/embedding-config.entity';
import { REINDEX_STATES } from '../entities/embedding-reindex-run.entity';
import { OUTBOUND_POLICY_NOTE } from '../../../platform/outbound-http/outbound-url-policy';

const KEY = 'Write-only: stored encrypted and never returned (reads show `api_key_set`).';
const BASE =
  'The provider endpoint: required for azure_openai (https://<resource>.openai.azure.com), optional for the others ' +
  '(their public API by default). A public HTTPS URL unless its host is in TRUSTED_AI_HOSTS; private, loopback, ' +
  'link-local and metadata addresses are refused (422) whatever ALLOW_PRIVATE_NETWORK_TARGETS says, and cloud ' +
  'metadata services (link-local addresses, fd00:ec2::254, 100.100.100.200, metadata.google.internal, metadata, ' +
  'instance-data and the like) even when listed in TRUSTED_AI_HOSTS. ' +
  OUTBOUND_POLICY_NOTE;
const MODEL =
  'The model (the deployment name on azure_openai). Defaults: local `hashing-ngram-v1`, openai and azure_openai ' +
  '`text-embedding-3-small`, cohere `embed-v4.0`, voyage `voyage-3.5`. For local: `hashing-ngram-v1` (the built-in ' +
  'hashing embedder) or the name of a Model2Vec model directory (config.json, tokenizer.json with a WordPiece model, ' +
  "model.safetensors) under the server's EMBEDDING_LOCAL_MODELS_DIR, e.g. `potion-base-8M`: a plain directory name " +
  '(no `/`, no `..`); 422 when the directory is not there or its model.safetensors header cannot be read.';
const DIMENSIONS =
  'Vector size, 8 to 2000 (pgvector indexes at most 2000). Defaults: local 384, openai and azure_openai 1536, ' +
  'cohere and voyage 1024. Sent to hosted providers as their output-dimension parameter. A local model directory ' +
  'sets its own size: leave this out to take it (also when model_name changes to such a model), any other value is 422.';
const PROVIDERS =
  'local (in process, no network: the built-in hashing embedder or a Model2Vec model directory), openai, ' +
  'azure_openai, cohere, voyage.';

export class CreateEmbeddingConfigDto {
  @EnumField(EMBEDDING_PROVIDERS, { enumName: 'EmbeddingProvider', description: PROVIDERS })
  provider: (typeof EMBEDDING_PROVIDERS)[number];

  @StringField({ optional: true, min: 1, max: 200, description: MODEL })
  model_name?: string;

  @IntField({ optional: true, min: 8, max: 2000, description: DIMENSIONS })
  dimensions?: number;

  @StringField({ optional: true, nullable: true, min: 1, max: 1000, description: KEY })
  api_key?: string | null;

  @StringField({ optional: true, nullable: true, max: 2000, description: BASE })
  api_base_url?: string | null;

  @BooleanField({
    optional: true,
    default: true,
    description: 'False turns semantic indexing and search off.',
  })
  is_enabled?: boolean;

  @StringField({
    optional: true,
    min: 1,
    max: 100,
    default: 'v1',
    description: 'A label of the index generation, stored on every vector.',
  })
  index_version?: string;
}

/**
 * Only the fields given change. Declared here: `api_key` (null removes it), `is_enabled` (what turning it
 * back on needs) and `index_version` (create documents a default that must not apply on update).
 */
export class UpdateEmbeddingConfigDto extends UpdateType(CreateEmbeddingConfigDto, [
  'provider',
  'model_name',
  'dimensions',
  'api_base_url',
] as const) {
  @StringField({ optional: true, nullable: true, min: 1, max: 1000, description: `${KEY} null removes it.` })
  api_key?: string | null;

  @BooleanField({
    optional: true,
    description:
      'False turns semantic indexing and search off. Changes made while off are not indexed: run a reindex after turning it back on.',
  })
  is_enabled?: boolean;

  @StringField({ optional: true, min: 1, max: 100 })
  index_version?: string;
}

export class EmbeddingConfigResponse {
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'Null for the environment configuration.',
  })
  id: string | null;

  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'Set for an instance-scoped configuration; null for the control-plane (global) one.',
  })
  instance_id: string | null;

  @ApiProperty({ enum: EMBEDDING_PROVIDERS, enumName: 'EmbeddingProvider' })
  provider: string;

  @ApiProperty()
  model_name: string;

  @ApiProperty({ type: 'integer' })
  dimensions: number;

  @ApiProperty()
  api_key_set: boolean;

  @ApiProperty({ nullable: true, type: String })
  api_base_url: string | null;

  @ApiProperty()
  is_enabled: boolean;

  @ApiProperty()
  index_version: string;

  @ApiProperty({
    enum: EMBEDDING_STATUSES,
    enumName: 'EmbeddingStatus',
    description:
      '`pending_reindex` after a change of provider, model or dimensions (or a new configuration that embeds differently), ' +
      'until a reindex of products and one of standards pages (unless none is published) succeed (`active`), or one ' +
      'fails (`failed`). The environment configuration is always `active`.',
  })
  status: string;

  @ApiProperty({
    enum: ['idle', 'warming', 'ready', 'failed', 'not_applicable'],
    description:
      'The local embedder in this process: `idle` until its first use, `warming` while it loads, then `ready` ' +
      '(or `failed`). A model directory starts loading in the background at start, on a configuration change and ' +
      'when this is read; it is loaded once per process and reused. A failed model makes embedding calls fail (search ' +
      'falls back to keywords, reindexing fails) until a configuration change or test-embedding loads it again. ' +
      '`not_applicable` for hosted providers.',
  })
  runtime_status: string;

  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'Why the local embedder failed (for a model directory: which file and what is wrong); else null.',
  })
  runtime_error: string | null;

  @ApiProperty({
    enum: ['pgvector', 'real_array'],
    description:
      'How vectors are searched, detected at start: `pgvector` (HNSW index, cosine) where `CREATE EXTENSION vector` ' +
      'works, else `real_array` (exact cosine over real[] in SQL, narrowed by the query filters).',
  })
  vector_store: string;

  @ApiProperty({ enum: ['database', 'environment'] })
  source: string;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  updated_by: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  created_at: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  updated_at: string | null;
}

export class TestEmbeddingResponse {
  @ApiProperty()
  success: boolean;

  @ApiProperty({ nullable: true, type: String, description: 'Why the call failed; null on success.' })
  error: string | null;

  @ApiProperty({
    nullable: true,
    type: 'integer',
    description: 'The size of the vector the provider answered; null on failure.',
  })
  dimensions: number | null;
}

export class ReindexResponse {
  @ApiProperty()
  message: string;

  @ApiProperty({ type: 'integer', description: 'How many items the run goes through.' })
  total: number;
}

export class ReindexRunResponse {
  @ApiProperty({ enum: ['product', 'standard_page'] })
  item_type: string;

  @ApiProperty({ enum: REINDEX_STATES, enumName: 'ReindexState' })
  state: string;

  @ApiProperty({ type: 'integer' })
  total: number;

  @ApiProperty({ type: 'integer' })
  done: number;

  @ApiProperty({ type: 'integer' })
  failed: number;

  @ApiProperty({ format: 'date-time' })
  started_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  finished_at: string | null;

  @ApiProperty({ nullable: true, type: String })
  error: string | null;
}

export class ReindexStatusResponse {
  @ApiProperty({
    enum: ['idle', ...REINDEX_STATES],
    description:
      'Over the latest run of each item type: `idle` before any, `queued`/`running` while one is, else `failed` if ' +
      'one failed, else `succeeded`.',
  })
  state: string;

  @ApiProperty({ type: 'integer' })
  total: number;

  @ApiProperty({ type: 'integer', description: 'Items handled (embedded, or unchanged and kept).' })
  done: number;

  @ApiProperty({ type: 'integer', description: 'Items the provider could not embed.' })
  failed: number;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  started_at: string | null;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'Null while a run is going.',
  })
  finished_at: string | null;

  @ApiProperty({ type: ReindexRunResponse, isArray: true, description: 'The latest run of each item type.' })
  runs: ReindexRunResponse[];
}
