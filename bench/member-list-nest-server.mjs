// The second baseline of the member list benchmark: GET /v2/loyalties/programs/{programId}/members served by a
// minimal NestJS application (NestFactory on @nestjs/platform-express, one controller, no global pipes, guards,
// interceptors or filters, no logging, request ids, metrics or rate limit) doing what the plain node:http
// baseline does, with its code: the key check (bench/lib/raw-server.mjs keyChecker: the API's statement, cached
// for APP_KEY_CACHE_MS, SHA-256 of the token compared in constant time) and the page (bench/lib/member-list-page.mjs:
// the API's plan, SQL, cursors and JSON) on a `pg` pool of the API's size (10). The difference between the API and
// this server is the API's own per-request work on top of Nest and Express (issue 40).
//
// Nest's defaults otherwise (its JSON and urlencoded body parsers included), but no ETag and no X-Powered-By:
// the API sends neither, and an ETag hashes every answer. The handler returns the page and Nest answers it
// (`res.json`); a refusal is an HttpException with the API's error body, which Nest's own exception handler
// answers with that body and status.
//
// Started by bench/member-list.mjs with DATABASE_URL and PORT in the environment; prints "listening" when ready.
import 'reflect-metadata';
import { Controller, Get, HttpException, Module, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import pg from 'pg';
import { error, memberListPages } from './lib/member-list-page.mjs';
import { keyChecker } from './lib/raw-server.mjs';

const POOL_SIZE = 10;
const KEY_CACHE_MS = Number(process.env.APP_KEY_CACHE_MS ?? 5000);

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: POOL_SIZE, application_name: 'loyalty-nest-baseline', keepAlive: true, query_timeout: 15_000 });
const authenticate = keyChecker(pool, KEY_CACHE_MS);
const listPage = await memberListPages(pool);

// Plain JavaScript: the decorators are applied by hand, as TypeScript would apply them.
class MembersController {
  async list(req) {
    const { projectId } = (await authenticate(req)) ?? {};
    if (!projectId) throw new HttpException(error(401, 'unauthorized', 'Unauthorized'), 401);
    const mark = req.url.indexOf('?');
    let answer;
    try {
      answer = await listPage(projectId, req.params.programId, mark < 0 ? '' : req.url.slice(mark + 1));
    } catch (failure) {
      // planMemberList refuses a bad `order` with the service's 400 error.
      if (failure.status === 400) throw new HttpException(error(400, failure.key, failure.message, failure.extra?.details), 400);
      throw failure;
    }
    if (answer.status !== 200) throw new HttpException(answer.body, answer.status);
    return answer.body;
  }
}
Req()(MembersController.prototype, 'list', 0);
Get()(MembersController.prototype, 'list', Object.getOwnPropertyDescriptor(MembersController.prototype, 'list'));
Controller('v2/loyalties/programs/:programId/members')(MembersController);

class AppModule {}
Module({ controllers: [MembersController] })(AppModule);

const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
app.getHttpAdapter().getInstance().disable('etag').disable('x-powered-by');
await app.listen(Number(process.env.PORT), '127.0.0.1');
process.stdout.write('listening\n');
process.once('SIGTERM', () => {
  app.close().then(() => pool.end()).then(() => process.exit(0), () => process.exit(1));
});
