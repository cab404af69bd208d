import { X509Certificate } from 'node:crypto';

/**
 * A certificate as admins paste it (PEM, or the bare base64 body, with any
 * line breaks) in canonical PEM, or null when it does not parse as X.509.
 */
export function normalizeCertificate(input: string): string | null {
  const body = input.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null;
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
    return pem;
  } catch {
    return null;
  }
}
