import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { normalizeCertificate } from './idp-certificate';
import { generateSpKeyPair } from './sp-keypair';

describe('SP key pair', () => {
  const pair = generateSpKeyPair('Verity SSO test');

  it('is a self-signed certificate for the generated private key', () => {
    const cert = new X509Certificate(pair.certificate);
    expect(cert.subject).toBe('CN=Verity SSO test');
    expect(cert.checkIssued(cert)).toBe(true);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(pair.privateKey))).toBe(true);
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now() + 9 * 365 * 24 * 3600 * 1000);
    expect(createPublicKey(pair.privateKey).asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it('normalises a pasted certificate: PEM, or the bare base64 body with any line breaks', () => {
    const body = pair.certificate.replace(/-----[A-Z ]+-----|\s/g, '');
    const canonical = normalizeCertificate(pair.certificate);
    expect(canonical).toMatch(
      /^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=]{1,64}\n)+-----END CERTIFICATE-----\n$/,
    );
    expect(normalizeCertificate(body)).toBe(canonical);
    expect(normalizeCertificate(`  ${body.slice(0, 30)}\r\n${body.slice(30)}  `)).toBe(canonical);
  });

  it('refuses what is not an X.509 certificate', () => {
    expect(normalizeCertificate('')).toBeNull();
    expect(normalizeCertificate('not a certificate')).toBeNull();
    expect(normalizeCertificate(Buffer.from('hello world').toString('base64'))).toBeNull();
    expect(normalizeCertificate(pair.privateKey)).toBeNull();
  });
});
