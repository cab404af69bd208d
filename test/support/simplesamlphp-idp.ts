import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { generateSpKeyPair } from '../../src/modules/sso/sp-keypair';

// Debian's package (`apt-get install simplesamlphp php-cli php-xml php-mbstring`; .ci/run installs them).
export const SIMPLESAMLPHP_WWW = '/usr/share/simplesamlphp/www';
const PHP = '/usr/bin/php';

export const URI_NAME_FORMAT = 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri';

/** A service provider as SimpleSAMLphp's saml20-sp-remote metadata knows it. */
export interface SimpleSamlSp {
  entityId: string;
  acsUrl: string;
  /** The SP's signing certificate (PEM): AuthnRequests must then be signed with its key. */
  signingCertificate?: string;
  /** The SPSSODescriptor's NameIDFormat, when it lists one. */
  nameIdFormat?: string;
  /** SimpleSAMLphp's `signature.algorithm` for this SP, when not its default (RSA-SHA256). */
  signatureAlgorithm?: string;
  /** Send attributes by OID (urn:oid:…) with the URI NameFormat instead of their friendly names. */
  uriAttributeNames?: boolean;
}

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

/**
 * An SP entry from its SAML metadata XML, as an administrator importing it
 * (or SimpleSAMLphp's metarefresh) would write it: entity ID, the HTTP-POST
 * ACS, the signing certificate and the NameID format it lists.
 */
export function spFromMetadata(xml: string): SimpleSamlSp {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const first = (ns: string, name: string) => doc.getElementsByTagNameNS(ns, name)[0];
  const acs = Array.from(doc.getElementsByTagNameNS(MD, 'AssertionConsumerService')).find(
    (el) => el.getAttribute('Binding') === 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
  );
  const signing = Array.from(doc.getElementsByTagNameNS(MD, 'KeyDescriptor')).find(
    (el) => (el.getAttribute('use') ?? 'signing') === 'signing',
  );
  const certificate = signing?.getElementsByTagNameNS(DSIG, 'X509Certificate')[0]?.textContent;
  return {
    entityId: doc.documentElement.getAttribute('entityID') ?? '',
    acsUrl: acs?.getAttribute('Location') ?? '',
    signingCertificate: certificate
      ? `-----BEGIN CERTIFICATE-----\n${certificate.trim()}\n-----END CERTIFICATE-----\n`
      : undefined,
    nameIdFormat: first(MD, 'NameIDFormat')?.textContent?.trim() || undefined,
  };
}

export interface SimpleSamlUser {
  username: string;
  password: string;
  /** Friendly names (mail, givenName, sn, …) to values. */
  attributes: Record<string, string[]>;
}

// SimpleSAMLphp's own name2oid map, for the attributes the tests send.
const NAME2OID: Record<string, string> = {
  mail: 'urn:oid:0.9.2342.19200300.100.1.3',
  givenName: 'urn:oid:2.5.4.42',
  sn: 'urn:oid:2.5.4.4',
  displayName: 'urn:oid:2.16.840.1.113730.3.1.241',
  uid: 'urn:oid:0.9.2342.19200300.100.1.1',
};

const php = (value: unknown): string => {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(php).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `[${entries.map(([k, v]) => `${/^\d+$/.test(k) ? k : php(k)} => ${php(v)}`).join(', ')}]`;
};

const pemBody = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * SimpleSAMLphp 1.19 (Debian) as a SAML 2.0 IdP on a loopback port, served by
 * `php -S` from a configuration written to a temporary directory: the
 * exampleauth:UserPass source, its own signing key, and the SPs given to
 * `start`. Its default signing settings are left alone, so a test sees what
 * a stock installation sends. Its log (errorlog handler) is what php writes
 * on stderr.
 */
export class SimpleSamlIdp {
  readonly baseUrl: string;
  readonly keys = generateSpKeyPair('SimpleSAMLphp test IdP');
  private readonly dir = mkdtempSync(join(tmpdir(), 'verity-simplesamlphp-'));
  private process: ChildProcess | null = null;
  private stderr = '';

  private constructor(readonly port: number) {
    this.baseUrl = `http://127.0.0.1:${port}`;
  }

  /** Reserves a port so that the SPs can be registered with the IdP's URLs before it starts. */
  static async prepare(): Promise<SimpleSamlIdp> {
    for (const path of [PHP, SIMPLESAMLPHP_WWW]) {
      if (!existsSync(path)) {
        throw new Error(
          `${path} is missing: install SimpleSAMLphp with "apt-get install simplesamlphp php-cli php-xml php-mbstring".`,
        );
      }
    }
    return new SimpleSamlIdp(await freePort());
  }

  /** The IdP's entity ID (SimpleSAMLphp's dynamic one: its metadata URL). */
  get entityId(): string {
    return `${this.baseUrl}/saml2/idp/metadata.php`;
  }

  /** Single sign-on service (HTTP-Redirect binding). */
  get ssoUrl(): string {
    return `${this.baseUrl}/saml2/idp/SSOService.php`;
  }

  get certificate(): string {
    return this.keys.certificate;
  }

  /** What SimpleSAMLphp logged so far. */
  get log(): string {
    return this.stderr;
  }

  async start(sps: SimpleSamlSp[], users: SimpleSamlUser[]): Promise<void> {
    const { dir } = this;
    for (const sub of ['metadata', 'log', 'data', 'tmp', 'sessions']) mkdirSync(join(dir, sub));
    writeFileSync(join(dir, 'idp.key'), this.keys.privateKey, { mode: 0o600 });
    writeFileSync(join(dir, 'idp.crt'), this.keys.certificate);
    const config = {
      baseurlpath: `${this.baseUrl}/`,
      certdir: `${dir}/`,
      loggingdir: join(dir, 'log'),
      datadir: join(dir, 'data'),
      tempdir: join(dir, 'tmp'),
      metadatadir: join(dir, 'metadata'),
      'metadata.sources': [{ type: 'flatfile', directory: join(dir, 'metadata') }],
      secretsalt: randomBytes(16).toString('hex'),
      'auth.adminpassword': randomBytes(16).toString('hex'),
      technicalcontact_name: 'Verity tests',
      technicalcontact_email: 'tests@example.org',
      timezone: 'UTC',
      // 5 = LOG_NOTICE: errors, warnings and notices, on php's stderr.
      'logging.level': 5,
      'logging.handler': 'errorlog',
      'enable.saml20-idp': true,
      'module.enable': { exampleauth: true },
      'store.type': 'phpsession',
      'session.phpsession.savepath': join(dir, 'sessions'),
      'session.cookie.secure': false,
    };
    writeFileSync(join(dir, 'config.php'), `<?php\n$config = ${php(config)};\n`);
    const userPass: Record<string, unknown> = {};
    for (const user of users) userPass[`${user.username}:${user.password}`] = user.attributes;
    writeFileSync(
      join(dir, 'authsources.php'),
      `<?php\n$config = ${php({ 'example-userpass': { 0: 'exampleauth:UserPass', ...userPass } })};\n`,
    );
    const hosted = {
      host: '__DEFAULT__',
      privatekey: 'idp.key',
      certificate: 'idp.crt',
      auth: 'example-userpass',
    };
    writeFileSync(
      join(dir, 'metadata', 'saml20-idp-hosted.php'),
      `<?php\n$metadata['__DYNAMIC:1__'] = ${php(hosted)};\n`,
    );
    const remote = sps
      .map((sp) => {
        const entry: Record<string, unknown> = { AssertionConsumerService: sp.acsUrl };
        if (sp.nameIdFormat) entry.NameIDFormat = sp.nameIdFormat;
        if (sp.signatureAlgorithm) entry['signature.algorithm'] = sp.signatureAlgorithm;
        if (sp.signingCertificate) {
          entry.certData = pemBody(sp.signingCertificate);
          entry['validate.authnrequest'] = true;
        }
        if (sp.uriAttributeNames) {
          entry['attributes.NameFormat'] = URI_NAME_FORMAT;
          entry.authproc = { 50: { class: 'core:AttributeMap', ...NAME2OID } };
        }
        return `$metadata[${php(sp.entityId)}] = ${php(entry)};\n`;
      })
      .join('');
    writeFileSync(join(dir, 'metadata', 'saml20-sp-remote.php'), `<?php\n${remote}`);

    const child = spawn(PHP, ['-S', `127.0.0.1:${this.port}`, '-t', SIMPLESAMLPHP_WWW], {
      env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.process = child;
    process.once('exit', this.orphanGuard);
    // php -S says "Development Server (http://…) started" on stderr once it listens.
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`php -S did not start: ${this.stderr}`)), 20_000);
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        this.stderr += chunk;
        if (/Development Server \(\S+\) started/.test(this.stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`php -S exited with ${code}: ${this.stderr}`));
      });
    });
    // A configuration SimpleSAMLphp refuses shows here rather than in the middle of a login.
    const metadata = await fetch(this.entityId);
    if (!metadata.ok) throw new Error(`SimpleSAMLphp answered ${metadata.status}: ${await metadata.text()}`);
  }

  private readonly orphanGuard = () => {
    if (this.process?.exitCode === null) this.process.kill('SIGKILL');
  };

  async close(): Promise<void> {
    process.off('exit', this.orphanGuard);
    const child = this.process;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
