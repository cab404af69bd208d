import type { Response } from 'express';
import { sendAnswer } from './ready-answer';

function fakeResponse(headers: Record<string, string>) {
  const sent: { status?: number; body?: unknown; ends: number } = { ends: 0 };
  const response = {
    statusCode: 201,
    setHeader: (name: string, value: string) => (headers[name.toLowerCase()] = value),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
    end(this: { statusCode: number }, body?: unknown) {
      sent.status = this.statusCode;
      sent.body = body;
      sent.ends++;
    },
  };
  return { response: response as unknown as Response, sent };
}

describe('sendAnswer', () => {
  it("replaces the headers that described another answer's body, and sends the stored one", () => {
    const headers = {
      'content-type': 'text/html',
      'content-length': '99',
      etag: 'W/"x"',
      'x-request-id': 'r1',
    };
    const { response, sent } = fakeResponse(headers);
    const body = Buffer.from('{"id":1}');
    sendAnswer(response, { status: 409, headers: { 'content-type': 'application/json' }, body });
    expect(sent).toEqual({ status: 409, body, ends: 1 });
    expect(headers).toEqual({ 'content-type': 'application/json', 'x-request-id': 'r1' });
  });

  it('sends no body with a 204, and ends through the end it is given', () => {
    const { response, sent } = fakeResponse({});
    let ownEnd = 0;
    const end = function (this: Response) {
      ownEnd++;
      return this;
    };
    sendAnswer(response, { status: 204, headers: {}, body: Buffer.from('ignored') }, end);
    expect(ownEnd).toBe(1);
    expect(sent.ends).toBe(0);
    expect(response.statusCode).toBe(204);
  });
});
