import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../config/app.config';
import { SafeHttpClient } from './safe-http.client';

const config = (env: Record<string, string>) =>
  loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'verity-provider-rules-')), ...env }, false);

describe('provider base URLs (decisions section 1 and 10)', () => {
  const trusted = ['models.internal', '10.0.0.7'];

  it('are public HTTPS, even when ALLOW_PRIVATE_NETWORK_TARGETS relaxes webhooks', () => {
    const client = new SafeHttpClient(config({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }));
    expect(client.providerRefusal('https://api.openai.com/v1', trusted)).toBeNull();
    expect(client.providerRefusal('http://api.openai.com/v1', trusted)).toMatch(/https/);
    expect(client.providerRefusal('https://127.0.0.1/v1', trusted)).toMatch(/loopback/);
    expect(client.providerRefusal('https://192.168.1.5/v1', trusted)).toMatch(/private/);
    expect(client.providerRefusal('https://localhost/v1', trusted)).toMatch(/public host/);
    expect(client.providerRefusal('https://169.254.169.254/v1', trusted)).toMatch(/linkLocal/);
    // Webhooks keep the relaxed rule.
    expect(client.refusal('http://127.0.0.1/hook')).toBeNull();
  });

  it('exempt only the hosts in TRUSTED_AI_HOSTS, over http or https', () => {
    const client = new SafeHttpClient(config({}));
    expect(client.providerRefusal('http://models.internal:8080/v1', trusted)).toBeNull();
    expect(client.providerRefusal('http://10.0.0.7/v1', trusted)).toBeNull();
    expect(client.providerRefusal('http://10.0.0.8/v1', trusted)).not.toBeNull();
    expect(client.providerRefusal('http://user:pw@models.internal/v1', trusted)).toMatch(/credentials/);
    expect(client.providerRefusal('ftp://models.internal/v1', trusted)).toMatch(/https/);
  });

  it('never reach a cloud metadata service, even a trusted one', () => {
    const client = new SafeHttpClient(config({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }));
    const listed = ['metadata.google.internal', '169.254.169.254', 'fd00:ec2::254', 'instance-data'];
    for (const url of [
      'http://metadata.google.internal/computeMetadata/v1',
      'http://169.254.169.254/latest',
      'http://[fd00:ec2::254]/latest',
      'http://instance-data/latest',
    ]) {
      expect(client.providerRefusal(url, listed)).toMatch(/metadata|linkLocal/);
      expect(client.providerRefusal(url, [])).not.toBeNull();
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
