import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SlugParams } from '../../../common/http/slug-params.dto';
import { IntField, StringField, TextField, UuidField } from '../../../common/validation/field.decorators';
import { CONSENT_STATUSES } from '../entities/web-search-consent.entity';
import { MAX_CALLS_PER_TASK } from '../web-research-rules';

export class TaskPathParams extends SlugParams {
  @UuidField({ description: 'The authoring task id.' })
  id: string;
}

export class ConsentIdParams {
  @UuidField({ description: 'The consent id.' })
  id: string;
}

export class CreateAuthoringTaskDto {
  @TextField({ max: 300, description: 'What the task is for.' })
  title: string;

  @UuidField({
    optional: true,
    nullable: true,
    description:
      'The pipeline definition being authored: an opaque id chosen by the client (the service does not look it up). ' +
      'It is part of the web-search consent scope.',
  })
  definition_id?: string | null;

  @UuidField({
    optional: true,
    nullable: true,
    description:
      'Makes this a delegated task (a worker or subagent) of a task of the same space (404 otherwise); it inherits the ' +
      "parent's root task and may not search the web.",
  })
  parent_task_id?: string | null;
}

export class AuthoringTaskResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) space_id: string;
  @ApiProperty() title: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) definition_id: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) parent_task_id: string | null;
  @ApiProperty({
    format: 'uuid',
    description: "The parent's root task, or the task itself when it has no parent.",
  })
  root_task_id: string;
  @ApiProperty({
    description: 'True when the task was created with a `parent_task_id`: it may not search the web.',
  })
  delegated: boolean;
  @ApiProperty({ type: 'integer', description: 'Successful distinct live web searches made so far.' })
  calls_used: number;
  @ApiProperty({ type: 'integer', description: `Live web searches left (${MAX_CALLS_PER_TASK} per task).` })
  calls_remaining: number;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class WebSearchDto {
  @StringField({
    min: 3,
    max: 500,
    description:
      'What to search for. Case and whitespace are normalised; a query carrying credentials, a secret-looking token or ' +
      'personal data (email, phone, card or bank number) is refused (422) and neither sent nor stored.',
  })
  query: string;

  @IntField({
    optional: true,
    min: 1,
    max: 8,
    default: 8,
    description: 'At most this many results (1 to 8).',
  })
  max_results?: number;
}

export class ConsentScopeResponse {
  @ApiProperty({ format: 'uuid' }) user_id: string;
  @ApiProperty({ format: 'uuid' }) space_id: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) definition_id: string | null;
  @ApiProperty({ format: 'uuid' }) root_task_id: string;
  @ApiProperty({ format: 'uuid', description: "The space's web_search capability binding." })
  binding_id: string;
  @ApiProperty({ format: 'uuid', description: 'The tool provider behind the binding.' }) provider_id: string;
}

export class ConsentResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: CONSENT_STATUSES, enumName: 'ConsentStatus' }) status: string;
  @ApiProperty({ type: ConsentScopeResponse }) scope: ConsentScopeResponse;
  @ApiProperty({ format: 'uuid', description: 'The task whose search asked for it.' }) task_id: string;
  @ApiProperty({
    format: 'date-time',
    description:
      'Pending: when the question lapses (24 h after it was asked). Approved: when the grant ends (24 h after approval).',
  })
  expires_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decided_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class ConsentRequiredResponse {
  @ApiProperty({ type: ConsentResponse }) consent: ConsentResponse;
}

export class WebSearchResultItem {
  @ApiProperty({ description: 'At most 300 characters, control characters removed.' }) title: string;
  @ApiProperty({ description: 'A public HTTPS URL.' }) url: string;
  @ApiProperty({ description: 'At most 1,000 characters; personal data redacted.' }) snippet: string;
  @ApiPropertyOptional({ format: 'date-time' }) published_at?: string;
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: 8,
    description: '1-based, in the order the tool answered.',
  })
  rank: number;
  @ApiProperty({ description: "The URL's host name, lowercased, without a leading `www.`." }) domain: string;
}

export class WebSearchResponse {
  @ApiProperty({ type: WebSearchResultItem, isArray: true }) results: WebSearchResultItem[];
  @ApiProperty({ format: 'uuid' }) evidence_id: string;
  @ApiProperty({ description: 'True when answered from stored evidence (no provider call, no quota used).' })
  reused: boolean;
  @ApiProperty({ type: 'integer' }) calls_used: number;
  @ApiProperty({ type: 'integer' }) calls_remaining: number;
}

export class EvidenceResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) task_id: string;
  @ApiProperty({ description: 'The sanitised query (as sent).' }) query: string;
  @ApiProperty({ type: 'integer' }) max_results: number;
  @ApiProperty({ type: WebSearchResultItem, isArray: true }) results: WebSearchResultItem[];
  @ApiProperty({ description: 'The tool, `{slug}.{tool_name}`.' }) tool_name: string;
  @ApiProperty({ format: 'uuid' }) binding_id: string;
  @ApiProperty({ format: 'uuid' }) provider_id: string;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The AI workflow run of the live call.',
  })
  run_id: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class EvidenceListResponse {
  @ApiProperty({ type: EvidenceResponse, isArray: true }) items: EvidenceResponse[];
  @ApiProperty({ type: 'integer' }) total: number;
}

export class ReplayDto {
  @UuidField({ optional: true, description: 'The evidence to replay. Give this or `query`, not both.' })
  evidence_id?: string;

  @StringField({
    optional: true,
    min: 3,
    max: 500,
    description: 'A query searched before by this task (matched after normalising case and whitespace).',
  })
  query?: string;
}
