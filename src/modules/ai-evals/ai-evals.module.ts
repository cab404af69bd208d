import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AiModule } from '../ai/ai.module';
import { AiEvalsController } from './ai-evals.controller';
import { AiEvalsQueries } from './ai-evals.queries';
import { AiEvalsService } from './ai-evals.service';
import { AiEvalResult } from './entities/ai-eval-result.entity';
import { AiEvalRun } from './entities/ai-eval-run.entity';

/** The deterministic AI eval suite (cases/) and its runs under /admin/ai-evals. */
@Module({
  imports: [TypeOrmModule.forFeature([AiEvalRun, AiEvalResult]), AiModule],
  controllers: [AiEvalsController],
  providers: [AiEvalsService, AiEvalsQueries],
})
export class AiEvalsModule {}
