// The floor of the mandated stack for GET /auth/me and POST /spaces: NestJS on Express, @nestjs/passport
// with passport-jwt (the same HS256 token), and pg with one prepared statement joining the session to
// its user (the FastAPI peer's query). POST /spaces adds what the stack mandates for a write: a
// class-validator DTO through Nest's ValidationPipe, and the peer's work (the space and its creator's
// admin membership) in one prepared statement on Verity's own schema. Nothing else: no middlewares,
// no other guard, no interceptor or filter, no event, audit or idempotency. WEB_CONCURRENCY processes
// (cluster), as the real server runs. Used by stack-floor.bench.mjs.
require('reflect-metadata');
const cluster = require('node:cluster');
const { createSecretKey } = require('node:crypto');
const { randomUUID } = require('node:crypto');
const {
  Body,
  ConflictException,
  Controller,
  Get,
  Injectable,
  Module,
  Post,
  Req,
  UseGuards,
  ValidationPipe,
} = require('@nestjs/common');
const { IsOptional, IsString, Length, Matches } = require('class-validator');
const { NestFactory } = require('@nestjs/core');
const { AuthGuard, PassportModule, PassportStrategy } = require('@nestjs/passport');
const { ExtractJwt, Strategy } = require('passport-jwt');
const { Pool } = require('pg');

const SESSION_USER_SQL = `SELECT u.id, u.email, u.first_name, u.last_name, u.is_active, u.is_superadmin, u.created_at
  FROM sessions s JOIN users u ON u.id = s.user_id
  WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now() AND u.is_active`;

// The space and its creator's admin membership, in one statement (Verity's own round-trip count).
const INSERT_SPACE_SQL = `WITH s AS (
    INSERT INTO spaces (id, name, slug, description, created_by) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (slug) DO NOTHING
    RETURNING id, name, slug, description, features, created_at, updated_at
  ), m AS (
    INSERT INTO space_memberships (space_id, user_id, role, direct_role) SELECT id, $5, 'admin', 'admin' FROM s
  )
  SELECT * FROM s`;

class CreateSpace {}
IsString()(CreateSpace.prototype, 'name');
Length(1, 200)(CreateSpace.prototype, 'name');
IsOptional()(CreateSpace.prototype, 'slug');
Matches(/^[a-z0-9][a-z0-9-]{1,62}$/)(CreateSpace.prototype, 'slug');
IsOptional()(CreateSpace.prototype, 'description');
IsString()(CreateSpace.prototype, 'description');
Length(0, 5000)(CreateSpace.prototype, 'description');

function serve() {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

  class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
    constructor() {
      super({
        jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
        secretOrKey: createSecretKey(Buffer.from(process.env.JWT_SECRET)),
        algorithms: ['HS256'],
      });
    }
    async validate(claims) {
      if (claims.typ !== 'access') return false;
      const { rows } = await pool.query({
        name: 'me',
        text: SESSION_USER_SQL,
        values: [claims.sid, claims.sub],
      });
      return rows[0] ?? false;
    }
  }
  Injectable()(JwtStrategy);

  class AuthController {
    me(request) {
      const user = request.user;
      return { ...user, created_at: user.created_at.toISOString() };
    }
    health() {
      return { status: 'ok' };
    }
    async create(request, body) {
      const slug = body.slug ?? body.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
      const { rows } = await pool.query({
        name: 'create-space',
        text: INSERT_SPACE_SQL,
        values: [randomUUID(), body.name, slug, body.description ?? null, request.user.id],
      });
      if (!rows[0]) throw new ConflictException(`The slug "${slug}" is taken.`);
      const space = rows[0];
      return {
        ...space,
        created_at: space.created_at.toISOString(),
        updated_at: space.updated_at.toISOString(),
        role: 'admin',
      };
    }
  }
  const method = (name) => Object.getOwnPropertyDescriptor(AuthController.prototype, name);
  Get('auth/me')(AuthController.prototype, 'me', method('me'));
  UseGuards(AuthGuard('jwt'))(AuthController.prototype, 'me', method('me'));
  Req()(AuthController.prototype, 'me', 0);
  Get('health')(AuthController.prototype, 'health', method('health'));
  Post('spaces')(AuthController.prototype, 'create', method('create'));
  UseGuards(AuthGuard('jwt'))(AuthController.prototype, 'create', method('create'));
  Req()(AuthController.prototype, 'create', 0);
  Body()(AuthController.prototype, 'create', 1);
  Reflect.defineMetadata('design:paramtypes', [Object, CreateSpace], AuthController.prototype, 'create');
  Controller('api/v1.0')(AuthController);

  class FloorModule {}
  Module({ imports: [PassportModule], controllers: [AuthController], providers: [JwtStrategy] })(FloorModule);

  NestFactory.create(FloorModule, { logger: ['error'] }).then((app) => {
    app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }));
    return app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
  });
}

const workers = Number(process.env.WEB_CONCURRENCY ?? 2);
if (cluster.isPrimary && workers > 1) for (let i = 0; i < workers; i++) cluster.fork();
else serve();
