import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SSRF_TEST_RESOLVER, SSRF_VECTORS } from '../../../test/support/ssrf-vectors';
import { loadConfig } from '../../config/app.config';
import { OutboundKind, OutboundPolicy } from './outbound-policy.service';
import { checkUrl, normalizeHost } from './outbound-url-policy';

const policy = (env: Record<string, string> = {}) =>
  new OutboundPolicy(
    loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-outbound-')), ...env }, false),
    SSRF_TEST_RESOLVER,
  );
const strict = policy();
const URL_KINDS: OutboundKind[] = ['webhook', 'web_search', 'ai_provider', 'sso'];
// Every vector host trusted and private targets allowed: what is refused then is refused whatever the settings.
const relaxed = policy({
  ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
  TRUSTED_AI_HOSTS: SSRF_VECTORS.map((v) => v.host ?? '')
    .filter((host) => /^[A-Za-z0-9:.[\]-]{1,80}$/.test(host) && !host.endsWith('.'))
    .join(','),
});

describe('normalizeHost', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['LOCALHOST.', 'localhost'],
    ['ⓛⓞⓒⓐⓛⓗⓞⓢⓣ', 'localhost'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['１２７.０.０.１', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['[0:0:0:0:0:ffff:7f00:1]', '::ffff:7f00:1'],
    ['[::1]', '::1'],
  ])('%s becomes %s', (raw, normalized) => {
    expect(normalizeHost(raw)).toBe(normalized);
  });

  it.each(['', 'a..b', 'exa mple.com', '-a.example.com', 'a.example.com..'])('refuses %j', (raw) => {
    expect(normalizeHost(raw)).toMatchObject({ reason: 'invalid_host' });
  });

  it('limits a host to 253 characters and a label to 63', () => {
    expect(normalizeHost(`${'a'.repeat(63)}.example.com`)).toBe(`${'a'.repeat(63)}.example.com`);
    expect(normalizeHost(`${'a'.repeat(64)}.example.com`)).toMatchObject({ reason: 'host_too_long' });
    const longest = `${'a'.repeat(49)}.`.repeat(5) + 'abc'; // 253
    expect(normalizeHost(longest)).toBe(longest);
    expect(normalizeHost(`${longest}d`)).toMatchObject({ reason: 'host_too_long' });
  });
});

describe('the SSRF vectors', () => {
  it.each(SSRF_VECTORS.map((v) => [v.url, v.reason, v] as const))(
    '%s is refused (%s) by every URL field',
    async (url, reason) => {
      for (const kind of URL_KINDS) expect(await strict.urlRefusal(url, kind)).toMatchObject({ reason });
    },
  );

  it.each(SSRF_VECTORS.filter((v) => v.host).map((v) => [v.host!, v.reason] as const))(
    'the host %s is refused (%s) by a connector host field',
    async (host, reason) => {
      expect(await strict.hostVerdict(host, 'database')).toMatchObject({ reason });
    },
  );

  it.each(SSRF_VECTORS.filter((v) => v.always).map((v) => [v.url, v.reason] as const))(
    '%s is refused (%s) even with ALLOW_PRIVATE_NETWORK_TARGETS and a trusted host',
    async (url, reason) => {
      for (const kind of URL_KINDS) expect(await relaxed.urlRefusal(url, kind)).toMatchObject({ reason });
    },
  );

  it.each(SSRF_VECTORS.filter((v) => v.always && v.host).map((v) => [v.host!, v.reason] as const))(
    'the host %s is refused (%s) even with ALLOW_PRIVATE_NETWORK_TARGETS',
    async (host, reason) => {
      expect(await relaxed.hostVerdict(host, 'database')).toMatchObject({ reason });
    },
  );

  it('checks the addresses again at connection time (DNS may answer differently than on saving)', async () => {
    for (const host of [
      '127.0.0.1.nip.io',
      '10.0.0.1.sslip.io',
      'v6-loopback.attacker.example',
      '127.0.0.1',
    ]) {
      const found = await strict.resolveAllowed(host, strict.rules('webhook', host));
      expect(found).toMatchObject({ reason: 'private_address' });
    }
    const found = await relaxed.resolveAllowed('meta.attacker.example', relaxed.rules('webhook', 'x'));
    expect(found).toMatchObject({ reason: 'metadata_host' });
    expect(await strict.resolveAllowed('public.verity.test', strict.rules('webhook', 'x'))).toEqual([
      { address: '93.184.215.14', family: 4 },
    ]);
  });
});

describe('what the policy accepts', () => {
  it('public https URLs, and names that do not resolve yet (checked again on connection)', async () => {
    for (const kind of URL_KINDS) {
      expect(await strict.urlRefusal('https://hooks.example.com/x?y=1', kind)).toBeNull();
      expect(await strict.urlRefusal('https://public.verity.test/x', kind)).toBeNull();
      expect(await strict.urlRefusal('https://[2606:4700:4700::1111]/x', kind)).toBeNull();
      expect(await strict.urlRefusal('https://bücher.example/x', kind)).toBeNull();
    }
    expect(await strict.hostVerdict('DB.Example.com.', 'database')).toBe('db.example.com');
  });

  it('loopback and private targets where the field allows them by setting', async () => {
    const open = policy({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true', TRUSTED_AI_HOSTS: 'models.internal' });
    expect(await open.urlRefusal('http://127.0.0.1:9000/hook', 'webhook')).toBeNull();
    expect(await open.urlRefusal('http://10.0.0.1.sslip.io/search', 'web_search')).toBeNull();
    expect(await open.hostVerdict('localhost', 'database')).toBe('localhost');
    // SSO: private hosts, but plain http only to a loopback host.
    expect(await open.urlRefusal('http://localhost:8080/realms/x', 'sso')).toBeNull();
    expect(await open.urlRefusal('http://10.0.0.1/realms/x', 'sso')).toMatchObject({
      reason: 'scheme_not_allowed',
    });
    // AI providers: ALLOW_PRIVATE_NETWORK_TARGETS never relaxes them; TRUSTED_AI_HOSTS does, over http too.
    expect(await open.urlRefusal('https://127.0.0.1/v1', 'ai_provider')).toMatchObject({
      reason: 'private_address',
    });
    expect(await open.urlRefusal('http://MODELS.internal./v1', 'ai_provider')).toBeNull();
  });

  it('answers the parsed URL and the normalised host', () => {
    const checked = checkUrl('https://API.Example.com./v1', { allowPrivate: false, plainHttp: 'never' });
    expect(checked).toMatchObject({ host: 'api.example.com' });
  });

  it('refuses a URL over 2048 characters', async () => {
    const url = `https://hooks.example.com/${'x'.repeat(2030)}`;
    expect(await strict.urlRefusal(url, 'webhook')).toMatchObject({ reason: 'url_too_long' });
  });
});
