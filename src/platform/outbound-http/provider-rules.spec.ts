import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../config/app.config';
import { OutboundPolicy } from './outbound-policy.service';

const config = (env: Record<string, string>) =>
  loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-provider-rules-')), ...env }, false);
// No name resolves: these cases are about the text rules.
const policy = (env: Record<string, string>) => new OutboundPolicy(config(env), () => Promise.resolve([]));
const reason = async (p: OutboundPolicy, url: string, kind: 'ai_provider' | 'webhook' = 'ai_provider') =>
  (await p.urlRefusal(url, kind))?.reason ?? null;

describe('provider base URLs (docs/decisions.md#ai-provider-urls)', () => {
  const trusted = { TRUSTED_AI_HOSTS: 'models.internal,10.0.0.7' };

  it('are public HTTPS, even when ALLOW_PRIVATE_NETWORK_TARGETS relaxes webhooks', async () => {
    const p = policy({ ...trusted, ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
    expect(await reason(p, 'https://api.openai.com/v1')).toBeNull();
    expect(await reason(p, 'http://api.openai.com/v1')).toBe('scheme_not_allowed');
    expect(await reason(p, 'https://127.0.0.1/v1')).toBe('private_address');
    expect(await reason(p, 'https://192.168.1.5/v1')).toBe('private_address');
    expect(await reason(p, 'https://localhost/v1')).toBe('local_host_name');
    expect(await reason(p, 'https://169.254.169.254/v1')).toBe('metadata_host');
    // Webhooks keep the relaxed rule.
    expect(await reason(p, 'http://127.0.0.1/hook', 'webhook')).toBeNull();
  });

  it('exempt only the hosts in TRUSTED_AI_HOSTS, over http or https', async () => {
    const p = policy(trusted);
    expect(await reason(p, 'http://models.internal:8080/v1')).toBeNull();
    expect(await reason(p, 'http://MODELS.internal./v1')).toBeNull();
    expect(await reason(p, 'http://10.0.0.7/v1')).toBeNull();
    expect(await reason(p, 'http://10.0.0.8/v1')).not.toBeNull();
    expect(await reason(p, 'http://user:pw@models.internal/v1')).toBe('userinfo_not_allowed');
    expect(await reason(p, 'ftp://models.internal/v1')).toBe('scheme_not_allowed');
  });

  it('never reach a cloud metadata service, even a trusted one', async () => {
    const listed = policy({
      TRUSTED_AI_HOSTS: 'metadata.google.internal,169.254.169.254,[fd00:ec2::254],instance-data',
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    });
    const unlisted = policy({});
    for (const url of [
      'http://metadata.google.internal/computeMetadata/v1',
      'http://169.254.169.254/latest',
      'http://[fd00:ec2::254]/latest',
      'http://instance-data/latest',
    ]) {
      expect(await reason(listed, url)).toBe('metadata_host');
      expect(await reason(unlisted, url)).not.toBeNull();
    }
  });
});

describe('TRUSTED_AI_HOSTS', () => {
  it('lists host names and addresses, lowercased, brackets removed', () => {
    expect(config({ TRUSTED_AI_HOSTS: ' Models.Internal, 10.0.0.7 ,[::1]' }).ai.trustedHosts).toEqual([
      'models.internal',
      '10.0.0.7',
      '::1',
    ]);
    expect(config({}).ai.trustedHosts).toEqual([]);
  });

  it('refuses anything else at boot', () => {
    expect(() => config({ TRUSTED_AI_HOSTS: 'http://models.internal' })).toThrow(ConfigError);
  });
});
