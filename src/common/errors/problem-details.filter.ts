import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
  Optional,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { InstanceContext } from '../../database/instance-context';
import { InstanceDatabases } from '../../database/instance-databases.registry';
import { DomainError, PROBLEM_TYPE_BASE } from './domain-error';
import { mapPostgresError } from './postgres-error.mapper';
import { ReadyAnswer, sendAnswer } from './ready-answer';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  [member: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

const DEFAULT_DETAILS: Record<number, string> = {
  401: 'Authentication is required: send a valid bearer token.',
  404: 'The requested resource was not found.',
  405: 'This method is not allowed on this resource.',
  413: 'The request body is too large.',
  415: 'The request body has an unsupported media type.',
  500: 'An unexpected error occurred. Quote the request id when reporting it.',
};

const MIDDLEWARE_DETAILS: Record<string, string> = {
  'entity.parse.failed': 'The request body is not valid JSON.',
  'entity.too.large': 'The request body is too large.',
  'encoding.unsupported': 'The request body has an unsupported encoding.',
  'charset.unsupported': 'The request body has an unsupported charset.',
};

/** Errors thrown by Express middleware such as body-parser carry these. */
interface MiddlewareError {
  status?: number;
  statusCode?: number;
  type?: string;
}

export function sendProblem(response: Response, body: ProblemBody): void {
  response.status(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** A problem body for a status, with the standard type and title. */
export function problemOf(status: number, detail: string, instance: string): ProblemBody {
  return {
    type: PROBLEM_TYPE_BASE + slugOf(status),
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    instance,
  };
}

function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const capitalised = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

function slugOf(status: number): string {
  return (TITLES[status] ?? 'error').toLowerCase().replace(/[^a-z]+/g, '-');
}

/**
 * The one place every error becomes an RFC 9457 problem-details response.
 * Unexpected errors are logged with the request id and answered with a
 * generic sentence: their cause never reaches the client. A lost
 * connection to the request's instance database, wherever it surfaced
 * (guards, interceptors, handlers), is that instance's 503.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  // Optional: applications without a database (some tests) have no instances.
  constructor(@Optional() private readonly databases?: InstanceDatabases) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.answer(exception, http.getRequest<Request>(), http.getResponse<Response>());
  }

  /**
   * Answers `request` with the problem `exception` makes (or, for a ReadyAnswer, with that answer). Also
   * for an error met after the handler, while its answer was being sent (the idempotency guard's late claim).
   */
  answer(exception: unknown, request: Request, response: Response): void {
    if (exception instanceof ReadyAnswer && !response.headersSent) {
      sendAnswer(response, exception.answer);
      return;
    }
    const { body, headers } = this.toProblem(exception, request);
    if (response.headersSent) {
      response.end();
      return;
    }
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    if (body.status === 401 && !response.getHeader('WWW-Authenticate')) {
      response.setHeader('WWW-Authenticate', 'Bearer');
    }
    sendProblem(response, body);
  }

  private toProblem(
    exception: unknown,
    request: Request,
  ): { body: ProblemBody; headers: Record<string, string> } {
    const instance = request.originalUrl?.split('?')[0] ?? request.url;
    const domain =
      exception instanceof DomainError
        ? exception
        : (this.databases?.unavailable(InstanceContext.instanceId(), exception) ??
          mapPostgresError(exception));
    if (domain) {
      return {
        body: {
          type: domain.type,
          title: domain.title,
          status: domain.status,
          detail: domain.detail,
          instance,
          ...domain.extensions,
        },
        headers: domain.headers,
      };
    }
    // Express and body-parser errors reach the filter wrapped by Nest, with the original as the cause.
    const middleware = (exception instanceof HttpException ? exception.cause : exception) as
      MiddlewareError | undefined;
    const middlewareDetail = middleware?.type ? MIDDLEWARE_DETAILS[middleware.type] : undefined;
    if (middlewareDetail) {
      const status = middleware?.status ?? middleware?.statusCode ?? 400;
      return { body: problemOf(status, middlewareDetail, instance), headers: {} };
    }
    if (exception instanceof HttpException) {
      return { body: this.fromHttpException(exception, instance), headers: {} };
    }
    this.logger.error(
      {
        msg: `Unhandled error on ${request.method} ${instance} [request ${request.id ?? '-'}]`,
        request_id: request.id,
        user_id: request.actor?.userId,
      },
      exception instanceof Error ? exception.stack : String(exception),
    );
    return {
      body: { ...problemOf(500, DEFAULT_DETAILS[500], instance), request_id: request.id },
      headers: {},
    };
  }

  private fromHttpException(exception: HttpException, instance: string): ProblemBody {
    const status = exception.getStatus();
    const payload = exception.getResponse();
    let detail: string | undefined;
    if (typeof payload === 'string') detail = payload;
    else if (payload && typeof payload === 'object') {
      const message = (payload as { message?: unknown }).message;
      detail = Array.isArray(message)
        ? message.join('; ')
        : typeof message === 'string'
          ? message
          : undefined;
    }
    if (
      status === HttpStatus.NOT_FOUND &&
      (!detail || /^Cannot (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /.test(detail))
    ) {
      detail = DEFAULT_DETAILS[404];
    }
    if (status === HttpStatus.PAYLOAD_TOO_LARGE) detail = DEFAULT_DETAILS[413];
    return problemOf(
      status,
      sentence(detail ?? DEFAULT_DETAILS[status] ?? TITLES[status] ?? 'Error'),
      instance,
    );
  }
}
