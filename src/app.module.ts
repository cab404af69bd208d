import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from './config/app.config';
import { ConfigModule } from './config/config.module';
import { DatabaseConnection } from './database/data-source-options';
import { DatabaseModule } from './database/database.module';
import { AiEvalsModule } from './modules/ai-evals/ai-evals.module';
import { AiFeedbackModule } from './modules/ai-feedback/ai-feedback.module';
import { AccountsModule } from './modules/accounts/accounts.module';
import { AiModule } from './modules/ai/ai.module';
import { AlertExplainModule } from './modules/alert-explain/alert-explain.module';
import { AuthoringModule } from './modules/authoring/authoring.module';
import { ApiKeysModule } from './modules/api-keys/api-keys.module';
import { AttachmentsModule } from './modules/attachments/attachments.module';
import { AuditLogModule } from './modules/audit/audit.module';
import { CatalogModule } from './modules/catalog/catalog.module';
import { EmbeddingsModule } from './modules/embeddings/embeddings.module';
import { ConnectorsModule } from './modules/connectors/connectors.module';
import { HealthModule } from './modules/health/health.module';
import { InstancesModule } from './modules/instances/instances.module';
import { LearningIntegrationModule } from './modules/learning-integration/learning-integration.module';
import { MetadataConfigModule } from './modules/metadata-config/metadata-config.module';
import { NotificationsModule } from './modules/notifications/notifications.module';
import { PoliciesModule } from './modules/policies/policies.module';
import { QualityModule } from './modules/quality/quality.module';
import { QueryModule } from './modules/query/query.module';
import { ReportsModule } from './modules/reports/reports.module';
import { ScimModule } from './modules/scim/scim.module';
import { SearchModule } from './modules/search/search.module';
import { PermissionsModule } from './modules/permissions/permissions.module';
import { OnboardingModule } from './modules/onboarding/onboarding.module';
import { RisksModule } from './modules/risks/risks.module';
import { RateLimitsModule } from './modules/rate-limits/rate-limits.module';
import { SpacesModule } from './modules/spaces/spaces.module';
import { SsoModule } from './modules/sso/sso.module';
import { StandardsModule } from './modules/standards/standards.module';
import { LineageRunsModule } from './modules/lineage-runs/lineage-runs.module';
import { OpenLineageModule } from './modules/openlineage/openlineage.module';
import { TicketsModule } from './modules/tickets/tickets.module';
import { ToolProvidersModule } from './modules/tool-providers/tool-providers.module';
import { UsersModule } from './modules/users/users.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { ChatChannelsModule } from './modules/chat-channels/chat-channels.module';
import { AuditModule } from './platform/audit/audit.module';
import { CryptoModule } from './platform/crypto/crypto.module';
import { IdempotencyModule } from './platform/idempotency/idempotency.module';
import { InstanceScopeModule } from './platform/instance-scope/instance-scope.module';
import { JobsModule } from './platform/jobs/jobs.module';
import { MailModule } from './platform/mail/mail.module';
import { MetricsModule } from './platform/metrics/metrics.module';
import { HostResolver } from './platform/outbound-http/host-resolver';
import { OutboundHttpModule } from './platform/outbound-http/outbound-http.module';
import { OutboxModule } from './platform/outbox/outbox.module';
import { StorageModule } from './platform/storage/storage.module';
import { GLOBAL_ENHANCERS } from './request-pipeline';

export interface AppModuleOptions {
  config: AppConfig;
  database: DatabaseConnection;
  /** False when the caller (a test) migrated the database already. */
  migrationsRun?: boolean;
  /** The database is the embedded one (PGlite), whatever its URL. */
  embedded?: boolean;
  /** Replaces DNS for outbound targets (tests); the system resolver when left out. */
  hostResolver?: HostResolver;
}

@Module({})
export class AppModule {
  static forRoot(options: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(options.config),
        DatabaseModule.forRoot({
          ...options.database,
          migrationsRun: options.migrationsRun ?? true,
          embedded: options.embedded ?? false,
        }),
        MetricsModule,
        CryptoModule,
        JobsModule,
        MailModule,
        OutboxModule,
        OutboundHttpModule.forRoot(options.hostResolver),
        StorageModule,
        AuditModule,
        IdempotencyModule,
        InstanceScopeModule,
        HealthModule,
        UsersModule,
        AccountsModule,
        InstancesModule,
        NotificationsModule,
        AuditLogModule,
        ApiKeysModule,
        RateLimitsModule,
        WebhooksModule,
        ChatChannelsModule,
        SpacesModule,
        MetadataConfigModule,
        CatalogModule,
        TicketsModule,
        ConnectorsModule,
        QualityModule,
        QueryModule,
        AttachmentsModule,
        RisksModule,
        PoliciesModule,
        ReportsModule,
        SsoModule,
        ScimModule,
        PermissionsModule,
        OnboardingModule,
        AiModule,
        AiFeedbackModule,
        LearningIntegrationModule,
        AlertExplainModule,
        AiEvalsModule,
        ToolProvidersModule,
        AuthoringModule,
        StandardsModule,
        LineageRunsModule,
        OpenLineageModule,
        EmbeddingsModule,
        SearchModule,
      ],
      // The guards, interceptor, pipe and filter of every request, in order (request-pipeline.ts).
      providers: GLOBAL_ENHANCERS,
    };
  }
}
