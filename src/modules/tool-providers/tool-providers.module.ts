import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CapabilityBinding } from './entities/capability-binding.entity';
import { Credential } from './entities/credential.entity';
import { ProviderTool } from './entities/provider-tool.entity';
import { SpaceToolEnablement } from './entities/space-tool-enablement.entity';
import { ToolGrant } from './entities/tool-grant.entity';
import { ToolProvider } from './entities/tool-provider.entity';
import { CredentialsController } from './credentials.controller';
import { CredentialsService } from './credentials.service';
import { McpSessionPool } from './mcp-session.pool';
import { ProviderRuntime } from './provider-runtime.service';
import { SpaceToolsController } from './space-tools.controller';
import { SpaceToolsService } from './space-tools.service';
import { ToolDiscoveryService } from './tool-discovery.service';
import { ToolGrantsService } from './tool-grants.service';
import { ToolProvidersController } from './tool-providers.controller';
import { ToolProvidersQueries } from './tool-providers.queries';
import { ToolProvidersService } from './tool-providers.service';
import { WebSearchCapabilityController } from './web-search-capability.controller';
import { WebSearchCapabilityService } from './web-search-capability.service';

/**
 * External tool providers over MCP (stdio): credentials, provider
 * administration and discovery, per-space enablement, the web_search
 * capability and external-research grants. Other modules call
 * WebSearchCapabilityService, ToolGrantsService and SpaceToolsService.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      Credential,
      ToolProvider,
      ProviderTool,
      SpaceToolEnablement,
      CapabilityBinding,
      ToolGrant,
    ]),
  ],
  controllers: [
    CredentialsController,
    ToolProvidersController,
    SpaceToolsController,
    WebSearchCapabilityController,
  ],
  providers: [
    ToolProvidersQueries,
    CredentialsService,
    ToolProvidersService,
    ToolDiscoveryService,
    ProviderRuntime,
    McpSessionPool,
    SpaceToolsService,
    WebSearchCapabilityService,
    ToolGrantsService,
  ],
  exports: [WebSearchCapabilityService, ToolGrantsService, SpaceToolsService],
})
export class ToolProvidersModule {}
