import type { SqlStatement } from './sql-statements.js';

/**
 * src/database/queries.sql: the statements of src (test/support/sql-statements.ts) as one SQL file, so that a
 * change of a query shows in review as SQL. Each entry is a header line naming its file and place, then the
 * statement (its indentation in the source removed), then a blank line.
 */
export const INVENTORY_HEADER = `-- The SQL statements of src, as test/e2e/sql-sources.e2e-spec.ts PREPAREs them against the migrated schema:
-- every SQL literal with its \${…} pieces evaluated in its file, every exported prepared(…) statement, and the
-- member list's pages. A statement marked "per call" takes pieces from each call; it is shown as written.
-- Generated: do not edit. After changing SQL, run \`npm run sql:update\` and commit this file with the change.
`;

const ENTRY = /^-- (\S+\.ts): (.*)$/;

function heading(statement: SqlStatement): string {
  const notes = [statement.prepared ? `prepared ${statement.prepared}` : '', statement.perCall ? 'per call' : ''].filter(Boolean);
  return `-- ${statement.file}: ${statement.names.join(', ')}${notes.length ? ` (${notes.join('; ')})` : ''}`;
}

/** A statement's text without the indentation of its source: the least indentation of its later lines is cut. */
function dedent(text: string): string {
  const lines = text.trim().split('\n').map((line) => line.trimEnd());
  const indents = lines.slice(1).filter((line) => line.trim()).map((line) => line.length - line.trimStart().length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return [lines[0], ...lines.slice(1).map((line) => line.slice(cut))].join('\n');
}

export function inventory(statements: SqlStatement[]): string {
  const seen = new Map<string, number>();
  const numbered = (line: string) => {
    const n = (seen.get(line) ?? 0) + 1;
    seen.set(line, n);
    return n === 1 ? line : `${line} #${n}`;
  };
  return [INVENTORY_HEADER, ...statements.map((s) => `${numbered(heading(s))}\n${dedent(s.text)};\n`)].join('\n');
}

/** The entries of an inventory by heading (a second entry with one heading gets `#2`). */
function entries(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let current: string[] | null = null;
  let previous = '';
  for (const line of text.split('\n')) {
    if (ENTRY.test(line) && previous === '') {
      let key = line;
      for (let n = 2; found.has(key); n += 1) key = `${line} #${n}`;
      found.set(key, (current = []));
    } else if (current) current.push(line);
    previous = line;
  }
  for (const lines of found.values()) while (lines.length && lines.at(-1) === '') lines.pop();
  return found;
}

/** A line diff (`-` committed, `+` now) of two statements, with one line of context around each change. */
function lineDiff(before: string[], after: string[]): string[] {
  // common[i][j]: the longest common subsequence of before[i…] and after[j…].
  const common = Array.from({ length: before.length + 1 }, () => new Array<number>(after.length + 1).fill(0));
  for (let i = before.length - 1; i >= 0; i -= 1) {
    for (let j = after.length - 1; j >= 0; j -= 1) common[i][j] = before[i] === after[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
  }
  const ops: { op: ' ' | '-' | '+'; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    if (i < before.length && j < after.length && before[i] === after[j]) {
      ops.push({ op: ' ', line: before[i] });
      i += 1;
      j += 1;
    } else if (i < before.length && (j === after.length || common[i + 1][j] >= common[i][j + 1])) {
      ops.push({ op: '-', line: before[i] });
      i += 1;
    } else {
      ops.push({ op: '+', line: after[j] });
      j += 1;
    }
  }
  const shown = ops.map((_, k) => ops.slice(Math.max(0, k - 1), k + 2).some(({ op }) => op !== ' '));
  return ops.flatMap(({ op, line }, k) => (shown[k] ? [`  ${op} ${line}`] : k > 0 && shown[k - 1] ? ['    …'] : []));
}

/** What differs between the committed inventory and the statements of src now, readably; empty when nothing does. */
export function inventoryDiff(committed: string, current: string): string[] {
  const before = entries(committed);
  const after = entries(current);
  const report: string[] = [];
  // A statement that only moved (its constant or method renamed) is one line.
  const gone = new Map([...before].filter(([key]) => !after.has(key)).map(([key, lines]) => [lines.join('\n'), key]));
  for (const [key, lines] of after) {
    const old = before.get(key);
    const movedFrom = old ? undefined : gone.get(lines.join('\n'));
    if (movedFrom) {
      const [from, to] = [movedFrom.slice(3), key.slice(3)];
      const file = from.slice(0, from.indexOf(': ') + 2);
      report.push(`moved ${from} → ${to.startsWith(file) ? to.slice(file.length) : to}`);
      gone.delete(lines.join('\n'));
    } else if (!old) report.push(`added ${key}`, ...lines.map((line) => `  + ${line}`));
    else if (old.join('\n') !== lines.join('\n')) report.push(`changed ${key}`, ...lineDiff(old, lines));
  }
  for (const key of gone.values()) report.push(`removed ${key}`, ...(before.get(key) as string[]).map((line) => `  - ${line}`));
  if (!report.length && committed !== current) report.push('the order of the entries or the header differs');
  return report;
}
