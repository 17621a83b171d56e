import type { Condition, MemberFilters, SortColumn, SortKey } from './member-list-query.js';

/**
 * The SQL of one page of the v2 member list, as text and bind values: a pure function, so the repository
 * runs it and the benchmark's plain `node:http` + `pg` baseline (bench/member-list-raw-server.mjs) runs
 * exactly the same statement.
 */

const COLUMNS = 'm.id, m.program_id, m.customer_id, m.status, m.metadata, m.created_at, m.updated_at';
const SQL_COLUMN: Record<SortColumn, string> = { created_at: 'm.created_at', status: 'm.status', customer_id: 'm.customer_id', id: 'm.id' };
const SQL_TYPE: Record<SortColumn, string> = { created_at: 'timestamptz', status: 'text', customer_id: 'text', id: 'text' };

/** Collects bind parameters while SQL is assembled, so no value is ever spliced into the text. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown, type?: string): string {
    this.values.push(value);
    return `$${this.values.length}${type ? `::${type}` : ''}`;
  }
}

/**
 * Live members of the program in `sort` order after `after` (the previous page's last sort values), at
 * most `limit`; `status` narrows to one status (the repository reads a status-led order one status at a
 * time). The program check rides in the same statement: one row of NULLs when the program exists but no
 * member matches, no row at all when the project has no such program.
 */
export function memberPageQuery(
  projectId: string,
  programId: string,
  sort: SortKey[],
  filters: MemberFilters,
  after: unknown[] | null,
  limit: number,
  status: string | null,
): { text: string; values: unknown[] } {
  const params = new Params();
  const program = `p.id = ${params.add(programId)} AND p.project_id = ${params.add(projectId)}`;
  const where = ['m.program_id = p.id', `m.status <> 'DELETED'`];
  if (status) where.push(`m.status = ${params.add(status)}`);
  const filter = filterSql(filters, params);
  if (filter) where.push(filter);
  if (after) where.push(keysetSql(sort, after, params));
  const orderBy = sort.map((key) => `${SQL_COLUMN[key.column]} ${key.desc ? 'DESC' : 'ASC'}`).join(', ');
  const text = `SELECT page.* FROM loyalty_programs p
       LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM members m WHERE ${where.join(' AND ')} ORDER BY ${orderBy} LIMIT ${params.add(limit, 'int')}) page ON true
       WHERE ${program}`;
  return { text, values: params.values };
}

function filterSql(filters: MemberFilters, params: Params): string | null {
  if (!filters.fields.length) return null;
  const fields = filters.fields.map((field) => `(${field.conditions.map((condition) => conditionSql(condition, params)).join(' AND ')})`);
  return `(${fields.join(filters.junction === 'OR' ? ' OR ' : ' AND ')})`;
}

function conditionSql(condition: Condition, params: Params): string {
  const column = SQL_COLUMN[condition.column];
  switch (condition.op) {
    case 'in':
      return condition.values.length === 1 ? `${column} = ${params.add(condition.values[0])}` : `${column} = ANY(${params.add(condition.values, 'text[]')})`;
    case 'not_in':
      return condition.values.length === 1 ? `${column} <> ${params.add(condition.values[0])}` : `${column} <> ALL(${params.add(condition.values, 'text[]')})`;
    case 'before':
      return `${column} < ${params.add(condition.at.toISOString(), 'timestamptz')}`;
    case 'after':
      return `${column} > ${params.add(condition.at.toISOString(), 'timestamptz')}`;
    case 'at':
      return `${column} = ${params.add(condition.at.toISOString(), 'timestamptz')}`;
    case 'on_day':
      return `${column} >= ${params.add(condition.from.toISOString(), 'timestamptz')} AND ${column} < ${params.add(condition.until.toISOString(), 'timestamptz')}`;
    case 'days_more_than':
      return `${column} < now() - make_interval(days => ${params.add(condition.days, 'int')})`;
    case 'days_less_than':
      return `${column} > now() - make_interval(days => ${params.add(condition.days, 'int')})`;
    case 'has_value':
      return `${column} IS NOT NULL`;
    case 'is_unknown':
      return `${column} IS NULL`;
  }
}

/**
 * Rows strictly after `after` in `sort` order. One direction throughout is a row comparison, which
 * PostgreSQL turns into an index range start. Mixed directions expand into the lexicographic OR, led by
 * a bound on the first column so the scan still starts at the cursor.
 */
function keysetSql(sort: SortKey[], after: unknown[], params: Params): string {
  const values = sort.map((key, i) => params.add(after[i], SQL_TYPE[key.column]));
  const columns = sort.map((key) => SQL_COLUMN[key.column]);
  if (sort.every((key) => key.desc === sort[0].desc)) return `(${columns.join(', ')}) ${sort[0].desc ? '<' : '>'} (${values.join(', ')})`;
  const branches = sort.map((key, i) => {
    const equal = columns.slice(0, i).map((column, j) => `${column} = ${values[j]}`);
    return `(${[...equal, `${columns[i]} ${key.desc ? '<' : '>'} ${values[i]}`].join(' AND ')})`;
  });
  return `${columns[0]} ${sort[0].desc ? '<=' : '>='} ${values[0]} AND (${branches.join(' OR ')})`;
}
