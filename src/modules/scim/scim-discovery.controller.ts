import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { ScimRoute } from './scim-auth.guard';
import { ScimDocument } from './scim-docs';
import { scimBase } from './scim-input';
import { resourceTypes, schemas, SCIM_CONTENT_TYPE, serviceProviderConfig } from './scim-resources';

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
  @ApiOperation({ operationId: 'scimResourceTypes', summary: 'SCIM: the resource types (User, Group)' })
  @ScimDocument('A ListResponse of ResourceType documents.')
  scimResourceTypes() {
    return resourceTypes(this.base);
  }

  @Get('Schemas')
  @ScimRoute()
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  @ApiOperation({ operationId: 'scimSchemas', summary: 'SCIM: the User and Group schemas' })
  @ScimDocument('A ListResponse of Schema documents.')
  scimSchemas() {
    return schemas(this.base);
  }
}
