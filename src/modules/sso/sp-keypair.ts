import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface SpKeyPair {
  /** PKCS#8 PEM. */
  privateKey: string;
  /** A self-signed X.509 certificate (PEM) for the public key; identity providers pin it from the metadata. */
  certificate: string;
}

const VALID_YEARS = 10;

/**
 * A service-provider signing key pair for one SSO provider. Node generates
 * the RSA key; node-forge only builds and signs the certificate around it
 * (Node has no X.509 builder).
 */
export function generateSpKeyPair(commonName: string): SpKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  // A positive serial: the high bit cleared.
  cert.serialNumber = `0${randomBytes(16).toString('hex').slice(1)}`;
  cert.validity.notBefore = new Date();
  cert.validity.notAfter = new Date(Date.now() + VALID_YEARS * 365 * 24 * 60 * 60 * 1000);
  const subject = [{ name: 'commonName', value: commonName.slice(0, 64) }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.sign(forge.pki.privateKeyFromPem(privatePem), forge.md.sha256.create());
  return { privateKey: privatePem, certificate: forge.pki.certificateToPem(cert) };
}
