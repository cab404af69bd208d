import { Module } from '@nestjs/common';
import { ConnectorsModule } from '../connectors/connectors.module';
import { QueryController } from './query.controller';
import { QueryService } from './query.service';

/** The visual query over connected sources; it stores nothing and reads sources through ConnectorsModule. */
@Module({
  imports: [ConnectorsModule],
  controllers: [QueryController],
  providers: [QueryService],
})
export class QueryModule {}
