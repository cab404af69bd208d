import type { Response } from 'express';

/** A complete HTTP answer, as kept to be sent again. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** Headers that describe an answer's body or where it points: an answer sent in place of another drops them. */
const ANSWER_HEADERS = ['content-type', 'content-length', 'etag', 'location', 'cache-control', 'set-cookie'];

/** Removes the headers set for an answer that another one is about to replace. */
export function dropAnswerHeaders(response: Response): void {
  for (const name of ANSWER_HEADERS) response.removeHeader(name);
}

/**
 * Thrown where the request's answer exists already (an idempotent replay): the
 * problem-details filter sends it as it is, instead of a problem.
 */
export class ReadyAnswer extends Error {
  constructor(readonly answer: StoredAnswer) {
    super('Ready answer');
  }
}

/**
 * Sends `answer` on `response`, replacing any body headers set for another answer (`end` is the
 * response's own end, when a wrapper has taken its place).
 */
export function sendAnswer(
  response: Response,
  answer: StoredAnswer,
  end: (this: Response, body?: Buffer) => unknown = response.end,
): void {
  dropAnswerHeaders(response);
  for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
  response.statusCode = answer.status;
  const empty = answer.status === 204 || answer.status === 304 || answer.body.length === 0;
  if (empty) end.call(response);
  else end.call(response, answer.body);
}
