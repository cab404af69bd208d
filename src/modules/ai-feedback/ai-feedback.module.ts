import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AiModule } from '../ai/ai.module';
import { AiFeedbackController } from './ai-feedback.controller';
import { AiFeedbackService } from './ai-feedback.service';
import { AiFeedback } from './entities/ai-feedback.entity';

/** Feedback on AI answers (`/ai-feedback`). */
@Module({
  imports: [TypeOrmModule.forFeature([AiFeedback]), AiModule],
  controllers: [AiFeedbackController],
  providers: [AiFeedbackService],
})
export class AiFeedbackModule {}
