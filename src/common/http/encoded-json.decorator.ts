import { Header } from '@nestjs/common';

/**
 * For a handler that returns JSON already encoded as text (by the database,
 * or kept encoded): the text goes out as the body, with its headers, in one
 * socket write. The response's shape is still documented by @ApiOkResponse.
 */
export const SendsEncodedJson = (): MethodDecorator =>
  Header('Content-Type', 'application/json; charset=utf-8');
