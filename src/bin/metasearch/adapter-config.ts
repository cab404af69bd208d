import { urlRefusal } from '../../platform/outbound-http/outbound-url-policy';

export const ENDPOINT_VAR = 'VERITY_WEB_SEARCH_ENDPOINT';
export const TIMEOUT_VAR = 'VERITY_WEB_SEARCH_TIMEOUT_SECONDS';
export const API_KEY_VAR = 'VERITY_WEB_SEARCH_API_KEY';
export const USER_AGENT_VAR = 'VERITY_WEB_SEARCH_USER_AGENT';
/** The platform's switch for development and tests (docs/decisions.md#private-network-targets): lets the endpoint be on loopback or a private network over http. */
export const ALLOW_PRIVATE_VAR = 'ALLOW_PRIVATE_NETWORK_TARGETS';

export const DEFAULT_TIMEOUT_SECONDS = 10;
export const DEFAULT_USER_AGENT = 'Verity-WebSearch/1.0 (+metasearch adapter)';
const MAX_USER_AGENT_CHARS = 256;
const MAX_API_KEY_CHARS = 4096;

export interface AdapterConfig {
  endpoint: URL;
  timeoutMs: number;
  /** Sent only as `Authorization: Bearer`; never logged. */
  apiKey: string | null;
  userAgent: string;
  allowPrivate: boolean;
}

export type ConfigResult = { ok: true; config: AdapterConfig } | { ok: false; errors: string[] };

// Header values: visible ASCII and spaces only, so nothing can end a header line early.
const HEADER_SAFE = /^[\x20-\x7e]+$/;

/**
 * The adapter's settings from its environment, or every reason they are
 * refused. The reasons name the variables, never a value (the key above all).
 */
export function readAdapterConfig(env: NodeJS.ProcessEnv): ConfigResult {
  const errors: string[] = [];
  const allowPrivate = env[ALLOW_PRIVATE_VAR] === 'true';

  let endpoint: URL | null = null;
  const rawEndpoint = env[ENDPOINT_VAR]?.trim() ?? '';
  if (rawEndpoint === '') {
    errors.push(
      `${ENDPOINT_VAR} is required: the http(s) URL of a metasearch JSON endpoint (such as SearXNG's /search).`,
    );
  } else if (!URL.canParse(rawEndpoint)) {
    errors.push(`${ENDPOINT_VAR} is not a valid URL.`);
  } else {
    const url = new URL(rawEndpoint);
    if (url.username || url.password) {
      errors.push(`${ENDPOINT_VAR} must not contain credentials: give the key in ${API_KEY_VAR}.`);
    } else if (rawEndpoint.includes('#')) {
      errors.push(`${ENDPOINT_VAR} must not contain a fragment.`);
    } else if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      errors.push(`${ENDPOINT_VAR} must be an http(s) URL.`);
    } else {
      const refused = urlRefusal(rawEndpoint, { allowPrivate, plainHttp: allowPrivate ? 'always' : 'never' });
      if (refused) {
        errors.push(
          `${ENDPOINT_VAR} is refused: ${refused}` +
            (allowPrivate ? '.' : ` (a private or plain-http endpoint needs ${ALLOW_PRIVATE_VAR}=true).`),
        );
      } else endpoint = url;
    }
  }

  let timeoutMs = DEFAULT_TIMEOUT_SECONDS * 1000;
  const rawTimeout = env[TIMEOUT_VAR]?.trim() ?? '';
  if (rawTimeout !== '') {
    const seconds = /^\d{1,2}$/.test(rawTimeout) ? Number(rawTimeout) : NaN;
    if (!(seconds >= 1 && seconds <= 30))
      errors.push(`${TIMEOUT_VAR} must be a whole number of seconds from 1 to 30.`);
    else timeoutMs = seconds * 1000;
  }

  let apiKey: string | null = null;
  const rawKey = env[API_KEY_VAR] ?? '';
  if (rawKey !== '') {
    if (!HEADER_SAFE.test(rawKey) || rawKey.length > MAX_API_KEY_CHARS) {
      errors.push(`${API_KEY_VAR} must be printable ASCII of at most ${MAX_API_KEY_CHARS} characters.`);
    } else apiKey = rawKey.trim();
  }

  let userAgent = DEFAULT_USER_AGENT;
  const rawAgent = env[USER_AGENT_VAR]?.trim() ?? '';
  if (rawAgent !== '') {
    if (!HEADER_SAFE.test(rawAgent) || rawAgent.length > MAX_USER_AGENT_CHARS) {
      errors.push(`${USER_AGENT_VAR} must be printable ASCII of at most ${MAX_USER_AGENT_CHARS} characters.`);
    } else userAgent = rawAgent;
  }

  if (errors.length > 0 || endpoint === null) return { ok: false, errors };
  return { ok: true, config: { endpoint, timeoutMs, apiKey, userAgent, allowPrivate } };
}

/** The endpoint with `q` set to the query and `format` forced to `json`; the other configured parameters are kept. */
export function searchUrl(endpoint: URL, query: string): URL {
  const url = new URL(endpoint);
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  return url;
}
