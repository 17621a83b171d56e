import { IsIn, IsOptional, Matches } from 'class-validator';

/**
 * The settings of a deployment with a connection pooler in front of PostgreSQL and of where migrations run
 * (docs/scaling.md). A class of its own, extended by EnvironmentVariables, so that the README's table and
 * validation treat them like every other variable.
 */
export class DatabaseEnvironmentVariables {
  // A session of its own (migrations under the advisory lock, the relay's LISTEN, the dispatcher's planner
  // settings): PostgreSQL directly, never a transaction-mode pooler. Unset: DATABASE_URL.
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/[^/?#\s]+/, { message: 'DATABASE_SESSION_URL must be a URL starting with postgres:// or postgresql://' })
  DATABASE_SESSION_URL?: string = undefined;

  // `transaction`: DATABASE_URL is a pooler in transaction mode (PgBouncer pool_mode=transaction), so its
  // connections get no startup parameters and keep no session state.
  @IsIn(['none', 'transaction'], { message: 'DATABASE_POOLER must be none or transaction' })
  DATABASE_POOLER: string = 'none';

  // Named prepared statements on DATABASE_URL's connections. Unset: true without a pooler, false with one
  // (PgBouncer before 1.21, or without max_prepared_statements, sends them to the wrong server connection).
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'DATABASE_PREPARED_STATEMENTS must be true or false' })
  DATABASE_PREPARED_STATEMENTS?: string = undefined;

  // false: the API, `npm start` and the CLI's commands do not migrate; `node dist/cli.js migrate` does (a Job).
  @IsIn(['true', 'false'], { message: 'MIGRATE_ON_START must be true or false' })
  MIGRATE_ON_START: string = 'true';
}
