import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Actor, OwnUserRow } from '../../common/auth/actor';
import type { ClientInfo } from '../../common/auth/current-actor.decorator';
import { PrefetchedSpace, SpaceAccessPort, SpaceAccessRow } from '../../common/permissions/space-access.port';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import { PreparedQueries } from '../../database/prepared-queries.runner';
import { randomToken, tokenHash } from '../../platform/crypto/tokens';
import { OWN_USER_PROPERTIES } from '../users/users.contract';
import { AccountsQueries, OWN_USER_PREFIX } from './accounts.queries';
import { RefreshToken } from './entities/refresh-token.entity';
import { Session } from './entities/session.entity';

export const ACCESS_TOKEN_SECONDS = 30 * 60;
export const IMPERSONATION_TOKEN_SECONDS = 15 * 60;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 60 * 60;

export interface AccessClaims {
  sub: string;
  sid: string;
  typ: 'access';
  act?: { sub: string };
  /** The instance the token reaches; tokens from before instances existed reach `default`. */
  ins?: string;
  iat?: number;
  exp?: number;
}

export interface IssuedTokens {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
}

interface ActorRow {
  email: string;
  instance_id: string;
  is_superadmin: boolean;
  impersonator_id: string | null;
  space?: SpaceAccessRow | null;
}

/** The caller behind a live session, the `{slug}` space and the caller's own row when they were asked for. */
export interface ResolvedSession {
  actor: Actor;
  space?: PrefetchedSpace;
  ownUser?: OwnUserRow;
}

// Each own-user property with its column's name in a session row: built once, read on every such request.
const OWN_USER_KEYS = OWN_USER_PROPERTIES.map(
  (property) => [property, `${OWN_USER_PREFIX}${property}`] as const,
);

/** The own-user columns of a session row, without their prefix. */
function ownUserOf(row: Record<string, unknown>): OwnUserRow {
  const own: OwnUserRow = {};
  for (const [property, column] of OWN_USER_KEYS) own[property] = row[column];
  return own;
}

const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000);

/** Sessions, the tokens bound to them, and the per-request revocation check. */
@Injectable()
export class SessionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jwt: JwtService,
    private readonly spaces: SpaceAccessPort,
    private readonly prepared: PreparedQueries,
    private readonly queries: AccountsQueries,
  ) {}

  /**
   * The hot path of every authenticated request: one primary-key lookup
   * that checks the session is live and its user active.
   */
  async resolveActor(
    claims: AccessClaims,
    spaceKey?: string,
    withOwnUser = false,
  ): Promise<ResolvedSession | null> {
    // The spaces of another instance are in its own database: its space guard looks there.
    const prefetch = spaceKey !== undefined && (claims.ins ?? DEFAULT_INSTANCE_ID) === DEFAULT_INSTANCE_ID;
    // A `{slug}` route: the space and the caller's role come along in the same round trip.
    const space = prefetch
      ? { sql: this.spaces.prefetchSql(spaceKey, '$3', 's.user_id'), key: spaceKey }
      : undefined;
    const [row] = await this.queries.liveSession<ActorRow>(
      this.prepared,
      claims.sid,
      claims.sub,
      space,
      withOwnUser,
    );
    if (!row) return null;
    if ((row.impersonator_id ?? undefined) !== claims.act?.sub) return null;
    if ((claims.ins ?? DEFAULT_INSTANCE_ID) !== row.instance_id) return null;
    const actor: Actor = {
      userId: claims.sub,
      email: row.email,
      // An impersonation token never carries superadmin power.
      isSuperadmin: row.is_superadmin && !row.impersonator_id,
      sessionId: claims.sid,
      apiKeyId: null,
      apiKeyTier: null,
      impersonatorId: row.impersonator_id,
      instanceId: row.instance_id,
    };
    return {
      actor,
      ...(prefetch ? { space: { key: spaceKey, row: row.space ?? null } } : {}),
      ...(withOwnUser ? { ownUser: ownUserOf(row as unknown as Record<string, unknown>) } : {}),
    };
  }

  /** A new sign-in (or a switch to another instance): a session, its first refresh token and an access token. */
  async start(
    em: EntityManager,
    userId: string,
    client: ClientInfo,
    instanceId: string = DEFAULT_INSTANCE_ID,
  ): Promise<IssuedTokens> {
    const session = await em.getRepository(Session).save({
      userId,
      instanceId,
      impersonatorId: null,
      ip: client.ip,
      userAgent: client.userAgent,
      expiresAt: inSeconds(REFRESH_TOKEN_SECONDS),
    });
    return this.issue(em, session);
  }

  async startImpersonation(
    em: EntityManager,
    userId: string,
    impersonatorId: string,
    client: ClientInfo,
    instanceId: string,
  ): Promise<Omit<IssuedTokens, 'refresh_token'>> {
    const session = await em.getRepository(Session).save({
      userId,
      instanceId,
      impersonatorId,
      ip: client.ip,
      userAgent: client.userAgent,
      expiresAt: inSeconds(IMPERSONATION_TOKEN_SECONDS),
    });
    const claims: AccessClaims = {
      sub: userId,
      sid: session.id,
      typ: 'access',
      act: { sub: impersonatorId },
      ins: instanceId,
    };
    return {
      access_token: await this.jwt.signAsync(claims, { expiresIn: IMPERSONATION_TOKEN_SECONDS }),
      token_type: 'bearer',
      expires_in: IMPERSONATION_TOKEN_SECONDS,
    };
  }

  /** Loads a refresh token and its session, locked for rotation. */
  findRefreshToken(em: EntityManager, token: string): Promise<RefreshToken | null> {
    return em.getRepository(RefreshToken).findOne({
      where: { tokenHash: tokenHash(token) },
      relations: { session: true },
      lock: { mode: 'pessimistic_write', tables: ['refresh_tokens'] },
    });
  }

  /** Retires the presented token and issues the next one in the same session. */
  async rotate(em: EntityManager, presented: RefreshToken, session: Session): Promise<IssuedTokens> {
    await em.getRepository(RefreshToken).update(presented.tokenHash, { rotatedAt: new Date() });
    session.expiresAt = inSeconds(REFRESH_TOKEN_SECONDS);
    await em.getRepository(Session).update(session.id, { expiresAt: session.expiresAt });
    return this.issue(em, session);
  }

  async revoke(em: EntityManager, sessionId: string, reason: string): Promise<void> {
    await em
      .getRepository(Session)
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'now()', revokedReason: reason })
      .where('id = :sessionId AND revoked_at IS NULL', { sessionId })
      .execute();
  }

  /** Ends every live session of a user, optionally sparing one (the caller's). */
  async revokeAllOf(
    em: EntityManager,
    userId: string,
    reason: string,
    except: string | null = null,
  ): Promise<void> {
    const qb = em
      .getRepository(Session)
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'now()', revokedReason: reason })
      .where('user_id = :userId AND revoked_at IS NULL', { userId });
    if (except) qb.andWhere('id <> :except', { except });
    await qb.execute();
  }

  private async issue(em: EntityManager, session: Session): Promise<IssuedTokens> {
    const refreshToken = randomToken('vrt_');
    await em.getRepository(RefreshToken).insert({
      tokenHash: tokenHash(refreshToken),
      sessionId: session.id,
      expiresAt: session.expiresAt,
      rotatedAt: null,
    });
    const claims: AccessClaims = {
      sub: session.userId,
      sid: session.id,
      typ: 'access',
      ins: session.instanceId,
    };
    return {
      access_token: await this.jwt.signAsync(claims, { expiresIn: ACCESS_TOKEN_SECONDS }),
      token_type: 'bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      refresh_token: refreshToken,
    };
  }
}
