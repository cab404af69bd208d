import { Module } from '@nestjs/common';
import { AiModule } from '../ai/ai.module';
import { QualityModule } from '../quality/quality.module';
import { AlertExplainController } from './alert-explain.controller';
import { AlertExplainService } from './alert-explain.service';

/** `POST /alerts/{id}/explain`: quality's alert context through the AI gateway; neither module knows the other. */
@Module({
  imports: [QualityModule, AiModule],
  controllers: [AlertExplainController],
  providers: [AlertExplainService],
})
export class AlertExplainModule {}
