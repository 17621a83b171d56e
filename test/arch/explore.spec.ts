import { writeFileSync } from 'node:fs';
import { readSourceTree } from './source-tree.js';
import { readNestGraph } from './nest-modules.js';

it('explore', () => {
  const t0 = Date.now();
  const tree = readSourceTree();
  const graph = readNestGraph(tree.files.values());
  const out: string[] = [`read in ${Date.now() - t0} ms, ${tree.files.size} files`];
  for (const m of graph.modules.values()) out.push(`${m.name} (${m.file}) imports ${[...m.imports].join(',')} | ctrl ${[...m.controllers].join(',')} | prov ${[...m.providers].join(',')}`);
  out.push('API ' + [...graph.closure('ApiModule')].join(','));
  out.push('WORKER ' + [...graph.closure('WorkerModule')].join(','));
  out.push('parts ' + [...graph.workerParts.keys()].join(','));
  for (const f of tree.files.values()) {
    const pk = [...f.packages.entries()].filter(([k]) => /^(typeorm|pg|@nestjs\/typeorm)/.test(k)).map(([k, v]) => `${k}${v.value ? '' : '(type)'}`);
    const sql = f.strings.filter((s) => /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|LOCK|CREATE|ALTER|DROP|LISTEN|UNLISTEN|NOTIFY|SET|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|TRUNCATE|VACUUM|ANALYZE|EXPLAIN|COPY|PREPARE|EXECUTE|DEALLOCATE)\b/.test(s.text) || /\b(INSERT INTO|DELETE FROM|UPDATE \w+ SET)\b|\bSELECT\b[\s\S]*\bFROM\b/.test(s.text));
    if (pk.length || sql.length) out.push(`TOUCH ${f.path}: ${pk.join(' ')} sql=${sql.length} ${sql.slice(0,2).map(s=>JSON.stringify(s.text.slice(0,50))).join(' ')}`);
    if (f.forwardRefs.length) out.push(`FWD ${f.path}`);
    if (f.envReads.length) out.push(`ENV ${f.path} ${f.envReads}`);
  }
  writeFileSync('/tmp/archtest/explore.txt', out.join('\n'));
});
