import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { EndpointRateLimit } from '../../common/http/rate-limit.decorators';
import { Page, PageOf, PageQuery } from '../../common/http/page.dto';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import { ConnectorsService } from './connectors.service';
import {
  ConnectorParams,
  ConnectorResponse,
  ConnectorSyncResponse,
  ConnectorTestResponse,
  CreateConnectorDto,
} from './dto/connector.dto';

const SAFETY =
  'Every session on the source is a dedicated short-lived connection, read-only (`default_transaction_read_only` and a READ ONLY ' +
  'transaction that is rolled back), with a 5 s connect timeout, a 10 s statement timeout and capped result rows. The host must ' +
  'not be a private, loopback or link-local address unless the operator sets `ALLOW_PRIVATE_NETWORK_TARGETS=true` ' +
  '(cloud metadata and link-local addresses stay refused); names are resolved and checked at connect time.';

@ApiTags('Connectors')
@Controller('connectors/spaces/:slug')
export class ConnectorsController {
  constructor(private readonly connectors: ConnectorsService) {}

  @Post()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'createConnector',
    summary: 'Connect a PostgreSQL database (edit access)',
    description:
      '`config.connection_string` is a `postgres://` URL; it is sealed with AES-256-GCM (bound to the connector id) and never ' +
      'returned: reads show `config.connection_string_set` with the host, port and database only. An invalid URL or a refused ' +
      `host answers 422 on \`config.connection_string\`. Nothing is contacted on create; use \`test\`. ${SAFETY}`,
  })
  @ApiCreatedResponse({ type: ConnectorResponse })
  @ApiProblems(422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreateConnectorDto,
  ): Promise<ConnectorResponse> {
    return this.connectors.create(actor, access, dto);
  }

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listConnectors',
    summary: 'List the connectors of a space',
    description: 'Oldest first.',
  })
  @ApiOkResponse({ type: PageOf(ConnectorResponse) })
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() page: PageQuery,
  ): Promise<Page<ConnectorResponse>> {
    return this.connectors.list(access, page);
  }

  @Get(':connector_id')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getConnector',
    summary: 'Get a connector',
    description:
      'One connector of the space with the outcome of its last test and sync; its connection string is never answered.',
  })
  @ApiOkResponse({ type: ConnectorResponse })
  @ApiProblems(422)
  get(@CurrentSpace() access: SpaceAccess, @Param() params: ConnectorParams): Promise<ConnectorResponse> {
    return this.connectors.get(access, params.connector_id);
  }

  @Delete(':connector_id')
  @SpaceRole('editor')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteConnector',
    summary: 'Delete a connector (edit access)',
    description:
      'Quality checks that used it stay, without a connector (their runs answer `error` until one is set).',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(422)
  async delete(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ConnectorParams,
  ): Promise<void> {
    await this.connectors.delete(actor, access, params.connector_id);
  }

  @Post(':connector_id/test')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testConnector',
    summary: 'Test a connector (edit access)',
    description: `Connects and reads the server version. A failure is an answer, not an error: \`{success: false, error}\`. ${SAFETY}`,
  })
  @ApiOkResponse({ type: ConnectorTestResponse })
  @ApiProblems(422)
  test(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ConnectorParams,
  ): Promise<ConnectorTestResponse> {
    return this.connectors.test(access, params.connector_id);
  }

  @Post(':connector_id/sync')
  @SpaceRole('editor')
  @HttpCode(200)
  @EndpointRateLimit(5)
  @ApiOperation({
    operationId: 'syncConnector',
    summary: 'Harvest the source into dataset products (edit access; 5 per minute)',
    description:
      'Reads the tables, views and their columns of every non-system schema the connecting role can use (at most 2,000) and ' +
      'creates or updates one `dataset` product per table, named after the table (`schema.table` outside `public`). ' +
      '`attributes.schema` holds the columns with their types and nullability, the table type and `row_estimate` (the ' +
      "planner's `pg_class.reltuples`; null when never analysed); `attributes.source` names the connector. Other attributes " +
      'and fields of an existing product are kept. A source that cannot be read answers `{status: "failed", error}` and ' +
      `changes nothing. ${SAFETY}`,
  })
  @ApiOkResponse({ type: ConnectorSyncResponse })
  @ApiProblems(422, 429)
  sync(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ConnectorParams,
  ): Promise<ConnectorSyncResponse> {
    return this.connectors.sync(actor, access, params.connector_id);
  }
}
