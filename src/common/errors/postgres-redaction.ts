/**
 * What of a PostgreSQL error may reach the logs. PostgreSQL quotes tenants' values in an error's `detail`
 * ("Failing row contains (cust_…, …, 'their name', …)", "Key (project_id, source_id)=(proj_…, order-1) already
 * exists"), and a data exception (class 22) quotes the value it refused in its message (`invalid input syntax
 * for type uuid: "…"`) and sometimes in `where` ("JSON data, line 1: …"). pino logs an error's own fields
 * (TypeORM's QueryFailedError copies the driver error's onto itself), so the logger's `err` serializer passes
 * every error through this: `detail` is replaced, and for class 22 the quoted value of the message (and of the
 * stack's first line) and `where`. The code, the constraint, the table and the column stay: they say what
 * failed without saying whose value.
 */
export const REDACTED = '[redacted]';

const SQLSTATE = /^[0-9A-Z]{5}$/;

type Fields = Record<string, unknown>;

/** A copy of a serialized error (pino's `stdSerializers.err` output) without PostgreSQL's quotes of values. */
export function redactPostgresError<T>(error: T, depth = 0): T {
  if (depth > 5 || error === null || typeof error !== 'object') return error;
  const fields = { ...(error as Fields) };
  for (const nested of ['driverError', 'cause'] as const) {
    if (fields[nested] !== undefined) fields[nested] = redactPostgresError(fields[nested], depth + 1);
  }
  const code = fields.code;
  if (typeof code !== 'string' || !SQLSTATE.test(code)) return fields as T;
  if (fields.detail !== undefined) fields.detail = REDACTED;
  if (code.startsWith('22')) {
    if (fields.where !== undefined) fields.where = REDACTED;
    if (typeof fields.message === 'string') {
      const message = fields.message;
      fields.message = withoutQuotedValue(message);
      if (typeof fields.stack === 'string') fields.stack = fields.stack.split(message).join(fields.message as string);
    }
  }
  return fields as T;
}

/** `invalid input syntax for type integer: "abc"` → `… "[redacted]"`; everything between the first and the last quote. */
function withoutQuotedValue(message: string): string {
  return message.replace(/"[\s\S]*"/, `"${REDACTED}"`);
}
