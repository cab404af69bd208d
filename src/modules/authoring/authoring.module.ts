import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AiModule } from '../ai/ai.module';
import { ToolProvidersModule } from '../tool-providers/tool-providers.module';
import { AuthoringTasksController } from './authoring-tasks.controller';
import { AuthoringTasksService } from './authoring-tasks.service';
import { ResearchConsentsController } from './research-consents.controller';
import { ResearchConsentsService } from './research-consents.service';
import { AuthoringTask } from './entities/authoring-task.entity';
import { WebSearchConsent } from './entities/web-search-consent.entity';
import { WebSearchEvidence } from './entities/web-search-evidence.entity';
import { ResearchEvidenceQueries } from './research-evidence.queries';
import { WebResearchService } from './web-research.service';

/**
 * Pipeline authoring: tasks, and the web-research facade with its consents
 * and evidence (quota). Uses tool-providers' exported WebSearchReadiness-,
 * WebSearchCall- and ToolGrantsService and its contract's SQL fragments.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([AuthoringTask, WebSearchConsent, WebSearchEvidence]),
    AiModule,
    ToolProvidersModule,
  ],
  controllers: [AuthoringTasksController, ResearchConsentsController],
  providers: [AuthoringTasksService, ResearchConsentsService, WebResearchService, ResearchEvidenceQueries],
})
export class AuthoringModule {}
