import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StandardPage } from './entities/standard-page.entity';
import { StandardsController } from './standards.controller';
import { StandardsService } from './standards.service';

/** Standards pages of a space. Their events feed webhooks, the audit log and the semantic index. */
@Module({
  imports: [TypeOrmModule.forFeature([StandardPage])],
  controllers: [StandardsController],
  providers: [StandardsService],
})
export class StandardsModule {}
