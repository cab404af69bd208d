import { Controller, Get, Header, Inject, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { ScimRoute } from './scim-auth.guard';
import { ScimDocument } from './scim-docs';
import { scimBase } from './scim-input';
import { ScimIdParams } from './dto/scim-query.dto';
import { ApiScimErrors } from './scim-auth.guard';
import {
  listResponse,
  resourceTypeList,
  schemaList,
  SCIM_CONTENT_TYPE,
  serviceProviderConfig,
} from './scim-resources';
import { ScimError } from './scim.errors';

@ApiTags('SCIM')
@Controller('scim/v2')
export class ScimDiscoveryController {
  private readonly base: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.base = scimBase(config);
  }

  @Get('ServiceProviderConfig')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'scimServiceProviderConfig',
    summary: 'SCIM: what this service provider supports',
    description: 'PATCH, filters (up to 200 results a page) and ETags; no bulk, sort or password change.',
  })
  @ScimDocument('The ServiceProviderConfig.')
  scimServiceProviderConfig() {
    return serviceProviderConfig(this.base);
  }

  @Get('ResourceTypes')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'scimResourceTypes',
    summary: 'SCIM: the resource types (User, Group)',
    description: 'The SCIM resource types this service provider serves (RFC 7644 section 4): User and Group.',
  })
  @ScimDocument('A ListResponse of ResourceType documents.')
  scimResourceTypes() {
    const types = resourceTypeList(this.base);
    return listResponse(types, types.length, 1);
  }

  @Get('ResourceTypes/:id')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'scimGetResourceType',
    summary: 'SCIM: one resource type (User or Group)',
    description: 'One SCIM resource type, `User` or `Group`; another id answers a SCIM 404.',
  })
  @ScimDocument('The ResourceType document.')
  @ApiScimErrors(404)
  scimGetResourceType(@Param() params: ScimIdParams) {
    const found = resourceTypeList(this.base).find((type) => type.id === params.id);
    if (!found) throw new ScimError(404, `No resource type ${params.id}.`);
    return found;
  }

  @Get('Schemas')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'scimSchemas',
    summary: 'SCIM: the User, Group and Enterprise User schemas',
    description:
      'The SCIM schemas of the User and Group resources and the Enterprise User extension this service provider serves (RFC 7643).',
  })
  @ScimDocument('A ListResponse of Schema documents.')
  scimSchemas() {
    const schemas = schemaList(this.base);
    return listResponse(schemas, schemas.length, 1);
  }

  @Get('Schemas/:id')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'scimGetSchema',
    summary: 'SCIM: one schema, by its URN',
    description: 'One SCIM schema by its URN; an unknown URN answers a SCIM 404.',
  })
  @ScimDocument('The Schema document.')
  @ApiScimErrors(404)
  scimGetSchema(@Param() params: ScimIdParams) {
    const found = schemaList(this.base).find((schema) => schema.id === params.id);
    if (!found) throw new ScimError(404, `No schema ${params.id}.`);
    return found;
  }
}
