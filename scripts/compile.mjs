// `npm run build`'s compiler: src/**/*.ts (but the specs) to dist/ with SWC, each file on its own, plus the
// SQL functions and event schemas the code reads at run time. SWC only strips types (in about a second);
// `npm run typecheck` checks them, and `npm test` runs it beside the tests. The options are the ones jest
// runs the sources with (scripts/swc-options.mjs), so the tests prove the code the processes run.
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { transformFile } from '@swc/core';
import { swcOptions } from './swc-options.mjs';

const source = 'src';
const output = 'dist';
/** Files the compiled code reads next to itself (src/database/sql-functions.ts, src/events/event-schemas.ts). */
const assets = [/^database\/functions\/[^/]+\.sql$/, /^events\/schemas\/.+\.json$/];

const files = readdirSync(source, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile())
  .map((entry) => relative(source, join(entry.parentPath, entry.name)));

await Promise.all(
  files.map(async (file) => {
    const from = join(source, file);
    if (file.endsWith('.ts') && !file.endsWith('.spec.ts')) {
      const to = join(output, file.replace(/\.ts$/, '.js'));
      const { code, map } = await transformFile(from, {
        ...swcOptions,
        sourceMaps: true,
        outputPath: to,
        sourceFileName: relative(dirname(to), from),
      });
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, `${code}\n//# sourceMappingURL=${basename(to)}.map\n`);
      writeFileSync(`${to}.map`, map);
    } else if (assets.some((asset) => asset.test(file))) {
      mkdirSync(dirname(join(output, file)), { recursive: true });
      copyFileSync(from, join(output, file));
    }
  }),
);
