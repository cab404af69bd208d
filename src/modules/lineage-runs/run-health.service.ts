import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppliedRunEvent, RunHealthPort } from './run-event';

/** Jobs and runs of OpenLineage events, and the alerts and check runs they raise. */
@Injectable()
export class RunHealthService extends RunHealthPort {
  async apply(_em: EntityManager, _event: AppliedRunEvent): Promise<void> {
    // Filled by the run-health work of issue 30.
  }
}
