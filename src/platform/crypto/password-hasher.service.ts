import { Injectable } from '@nestjs/common';
import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id; the package's const enum cannot be imported under isolated transpilation.
const ARGON2ID = 2;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

@Injectable()
export class PasswordHasher {
  /** A real hash of a random value, verified against when the account is unknown, so both paths take as long. */
  private readonly decoy = hash(`decoy-${Math.random()}`, OPTIONS);

  hash(password: string): Promise<string> {
    return hash(password, OPTIONS);
  }

  async verify(passwordHash: string | null, password: string): Promise<boolean> {
    if (!passwordHash) {
      await verify(await this.decoy, password).catch(() => false);
      return false;
    }
    return verify(passwordHash, password).catch(() => false);
  }
}
