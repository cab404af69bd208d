import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { catchError, Observable, throwError } from 'rxjs';
import { InstanceContext } from '../../database/instance-context';
import {
  InstanceDatabases,
  InstanceUnavailable,
  isConnectionFailure,
} from '../../database/instance-databases';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';

/**
 * A query on an instance's database failed because that database went away
 * mid-request: answer 503 with Retry-After, and let the instance's next
 * requests fail fast until it answers again. Other instances are untouched.
 */
@Injectable()
export class InstanceUnavailableInterceptor implements NestInterceptor {
  constructor(private readonly databases: InstanceDatabases) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const instanceId = InstanceContext.instanceId();
    if (instanceId === DEFAULT_INSTANCE_ID) return next.handle();
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (!isConnectionFailure(error)) return throwError(() => error);
        this.databases.markUnavailable(instanceId, error);
        return throwError(() => new InstanceUnavailable(instanceId));
      }),
    );
  }
}
