import { addressRefusal } from './address-policy';
import { checkHost, urlRefusal } from './outbound-url-policy';

const strict = { allowPrivate: false, plainHttp: 'never' } as const;
const relaxed = { allowPrivate: true, plainHttp: 'always' } as const;

describe('addressRefusal', () => {
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])('allows the public address %s', (address) => {
    expect(addressRefusal(address, strict)).toBeNull();
  });

  it.each([
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '127.0.0.1',
    '::1',
    'fc00::1',
    '100.64.0.1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
  ])('refuses the private or loopback address %s unless relaxed', (address) => {
    expect(addressRefusal(address, strict)).toMatch(/address/);
    expect(addressRefusal(address, relaxed)).toBeNull();
  });

  it.each([
    '169.254.169.254',
    'fe80::1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    'fd00:ec2::254',
    '::ffff:169.254.169.254',
    '100.100.100.200',
  ])('always refuses %s, even relaxed', (address) => {
    expect(addressRefusal(address, relaxed)).toMatch(/address/);
  });
});

describe('urlRefusal', () => {
  it('wants https unless relaxed, and never credentials', () => {
    expect(urlRefusal('https://hooks.example.com/x', strict)).toBeNull();
    expect(urlRefusal('http://hooks.example.com/x', strict)).toBe('it must use https');
    expect(urlRefusal('http://127.0.0.1:9000/x', relaxed)).toBeNull();
    expect(urlRefusal('ftp://hooks.example.com', relaxed)).toBe('it must use https, not ftp:');
    expect(urlRefusal('https://user:pw@hooks.example.com', strict)).toBe('it must not contain credentials');
    expect(urlRefusal('not a url', strict)).toBe('it is not a valid URL');
  });

  it('refuses literal private addresses and local names up front', () => {
    expect(urlRefusal('https://10.1.2.3/hook', strict)).toMatch(/private/);
    expect(urlRefusal('https://[::1]/hook', strict)).toMatch(/loopback/);
    expect(urlRefusal('https://169.254.169.254/latest/meta-data', relaxed)).toMatch(/linkLocal/);
    expect(urlRefusal('https://localhost/hook', strict)).toMatch(/not a public host name/);
    expect(urlRefusal('https://intranet/hook', strict)).toMatch(/not a public host name/);
  });
});

describe('cloud metadata hosts', () => {
  it.each([
    'metadata',
    'metadata.google.internal',
    'METADATA.google.internal.',
    'metadata.goog',
    'instance-data',
    'instance-data.ec2.internal',
    '169.254.169.254',
    '::ffff:169.254.169.254',
    'fe80::a9fe:a9fe',
    'fd00:ec2::254',
    '100.100.100.200',
  ])('refuses the metadata service %s, even where private targets are allowed', (host) => {
    expect(checkHost(host, relaxed)).toMatchObject({ reason: 'metadata_host' });
  });

  it.each(['api.openai.com', 'models.internal', '10.0.0.7', '127.0.0.1', 'metadata.example.com'])(
    'leaves %s to the other rules',
    (host) => {
      expect(checkHost(host, relaxed)).toBe(host);
    },
  );
});
