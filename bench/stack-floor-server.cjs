// The floor of the mandated stack for GET /auth/me: NestJS on Express, @nestjs/passport with passport-jwt
// (the same HS256 token), and pg with one prepared statement joining the session to its user (the
// FastAPI peer's query). Nothing else: no middlewares, no other guard, no interceptor, pipe or filter.
// WEB_CONCURRENCY processes (cluster), as the real server runs. Used by stack-floor.bench.mjs.
require('reflect-metadata');
const cluster = require('node:cluster');
const { createSecretKey } = require('node:crypto');
const { Controller, Get, Injectable, Module, Req, UseGuards } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { AuthGuard, PassportModule, PassportStrategy } = require('@nestjs/passport');
const { ExtractJwt, Strategy } = require('passport-jwt');
const { Pool } = require('pg');

const SESSION_USER_SQL = `SELECT u.id, u.email, u.first_name, u.last_name, u.is_active, u.is_superadmin, u.created_at
  FROM sessions s JOIN users u ON u.id = s.user_id
  WHERE s.id = $1 AND s.user_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now() AND u.is_active`;

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
  }
  const method = (name) => Object.getOwnPropertyDescriptor(AuthController.prototype, name);
  Get('auth/me')(AuthController.prototype, 'me', method('me'));
  UseGuards(AuthGuard('jwt'))(AuthController.prototype, 'me', method('me'));
  Req()(AuthController.prototype, 'me', 0);
  Get('health')(AuthController.prototype, 'health', method('health'));
  Controller('api/v1.0')(AuthController);

  class FloorModule {}
  Module({ imports: [PassportModule], controllers: [AuthController], providers: [JwtStrategy] })(FloorModule);

  NestFactory.create(FloorModule, { logger: ['error'] }).then((app) =>
    app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1'),
  );
}

const workers = Number(process.env.WEB_CONCURRENCY ?? 2);
if (cluster.isPrimary && workers > 1) for (let i = 0; i < workers; i++) cluster.fork();
else serve();
