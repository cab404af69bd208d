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
import { WebSearchBindingController } from './web-search-binding.controller';
import { WebSearchBindingService } from './web-search-binding.service';
import { WebSearchCallService } from './web-search-call.service';
import { WebSearchReadinessService } from './web-search-readiness.service';

/**
 * External tool providers over MCP (stdio): credentials, provider
 * administration and discovery, per-space enablement, the web_search
 * capability (binding, readiness, call) and external-research grants.
 * Other modules call WebSearchReadinessService, WebSearchCallService and
 * ToolGrantsService, and embed the SQL of tool-providers.contract.ts
 * (see README.md).
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
    WebSearchBindingController,
  ],
  providers: [
    ToolProvidersQueries,
    CredentialsService,
    ToolProvidersService,
    ToolDiscoveryService,
    ProviderRuntime,
    McpSessionPool,
    SpaceToolsService,
    WebSearchBindingService,
    WebSearchReadinessService,
    WebSearchCallService,
    ToolGrantsService,
  ],
  exports: [WebSearchReadinessService, WebSearchCallService, ToolGrantsService],
})
export class ToolProvidersModule {}
