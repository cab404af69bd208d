import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { Authenticated } from '../../common/auth/authenticated.decorator';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { NoRateLimit } from '../../common/http/rate-limit.decorators';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import {
  OpenLineageAcceptedResponse,
  OpenLineageDatasetEvent,
  OpenLineageJobEvent,
  OpenLineageRunEvent,
} from './dto/openlineage-event.dto';
import { MAX_BATCH, OpenLineageIngestService } from './openlineage-ingest.service';

const EVENT_SCHEMAS = [OpenLineageRunEvent, OpenLineageJobEvent, OpenLineageDatasetEvent].map((model) => ({
  $ref: getSchemaPath(model),
}));

/** The OpenLineage HTTP transport's endpoint: clients set their URL to `…/api/v1.0/openlineage`. */
@ApiTags('OpenLineage')
@ApiExtraModels(OpenLineageRunEvent, OpenLineageJobEvent, OpenLineageDatasetEvent)
@Controller('openlineage/api/v1')
export class OpenLineageController {
  constructor(private readonly ingestion: OpenLineageIngestService) {}

  @Post('lineage')
  @Authenticated()
  @NoRateLimit()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'ingestOpenLineageEvents',
    summary: 'Receive OpenLineage events (the OpenLineage HTTP transport posts here)',
    description:
      'One RunEvent, JobEvent or DatasetEvent, or a JSON array of them (a batch of at most ' +
      `${MAX_BATCH}, body up to 10 MB), sent with \`Authorization: Bearer <API key>\`. Events are checked against ` +
      'the OpenLineage specification: an invalid one answers 422 naming the field (in a batch with its index, ' +
      '`[2].run.runId`) and nothing is stored. An event lands in every space that maps one of its namespaces ' +
      '(job, datasets) under `/spaces/{slug}/openlineage/namespaces`; an event no space maps is answered 201 with ' +
      '`accepted: 0` and changes nothing. If a mapped space is one the key’s user may not edit, the whole request ' +
      'is refused (403) and nothing is stored. Accepted events are stored at once and applied in the background, ' +
      'in event-time order (lineage, products, columns, runs; within about a second). A run event is stored once ' +
      'per (runId, eventType, eventTime): sending it again is harmless. Not rate-limited: producers send an event ' +
      'per task transition and the OpenLineage transports do not retry a 429; an `Idempotency-Key` header is honoured ' +
      'as on every POST, but is never needed.',
  })
  @ApiBody({
    schema: {
      anyOf: [...EVENT_SCHEMAS, { type: 'array', maxItems: MAX_BATCH, items: { anyOf: EVENT_SCHEMAS } }],
    },
  })
  @ApiCreatedResponse({ type: OpenLineageAcceptedResponse, description: 'Stored (or nothing to store).' })
  @ApiProblems(403, 413, 422)
  ingest(@CurrentActor() actor: Actor, @Body() body: unknown): Promise<OpenLineageAcceptedResponse> {
    return this.ingestion.ingest(actor, body);
  }
}
