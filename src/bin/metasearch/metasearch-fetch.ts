import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressRefusal } from '../../platform/outbound-http/address-policy';
import type { AdapterConfig } from './adapter-config';

/** The spec's cap on a metasearch answer. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/** A failure the tool reports as its error text: says what went wrong, never the key. */
export class MetasearchError extends Error {
  override readonly name = 'MetasearchError';
}

/**
 * GETs the search URL and parses the JSON answer. The endpoint's resolved
 * address is checked when connecting (so DNS cannot swing it to a refused
 * address), the whole exchange has one deadline, redirects are not
 * followed, and the body is abandoned as soon as it passes 1 MB.
 */
export function fetchMetasearch(url: URL, config: AdapterConfig): Promise<unknown> {
  const lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as LookupAddress[];
      for (const { address } of list) {
        const reason = addressRefusal(address, { allowPrivate: config.allowPrivate });
        if (reason)
          return callback(new MetasearchError(`The metasearch endpoint is refused: ${reason}.`), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': config.userAgent };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise((resolve, reject) => {
    let settled = false;
    const deadline = setTimeout(() => {
      req.destroy();
      finish(
        new MetasearchError(`The metasearch endpoint did not answer within ${config.timeoutMs / 1000} s.`),
      );
    }, config.timeoutMs);
    const finish = (error: Error | null, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (error) reject(error);
      else resolve(value);
    };
    const req = send(url, { method: 'GET', headers, lookup }, (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        res.resume();
        return finish(new MetasearchError(`The metasearch endpoint answered HTTP ${status}.`));
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) {
        req.destroy();
        return finish(new MetasearchError('The metasearch answer is larger than 1 MB.'));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          req.destroy();
          return finish(new MetasearchError('The metasearch answer is larger than 1 MB.'));
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        try {
          finish(null, JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          finish(new MetasearchError('The metasearch endpoint did not answer JSON.'));
        }
      });
      res.on('error', () => finish(new MetasearchError('The metasearch answer was cut off.')));
    });
    req.on('error', (error) =>
      finish(
        error instanceof MetasearchError
          ? error
          : new MetasearchError(`The metasearch endpoint could not be reached (${connectionReason(error)}).`),
      ),
    );
    req.end();
  });
}

/** A connection error's code (ECONNREFUSED, ENOTFOUND, ...), which says what failed without echoing anything sent. */
function connectionReason(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' ? code : 'connection failed';
}
