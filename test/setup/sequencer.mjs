// The order in which jest hands the test files to its workers (`--maxWorkers`), planned so that the run ends
// soon. First the `@serial` files, which run alone among the database-backed files whatever their place: at the
// start they share the machine only with the unit tier (next in the order, no database and no lock) and the
// type-check beside jest, which fill the cores they leave idle; last, they ran alone at the run's tail (about
// 25 s of one busy core, measured 2026-11-29). Then a simulated schedule of the others, longest file first,
// in which a `@heavy` file starts only once the heavy lane (file-environment.mjs) is free, so that no worker
// sits waiting for it.
//
// A file's expected duration is the one jest measured in an earlier run on this machine (its cache) or else
// the one in test/setup/durations.json (seconds of the database-backed files, written by a whole run with
// TEST_TIMINGS_FILE=test/setup/durations.json: global-teardown.mjs); a file in neither counts as
// DEFAULT_SECONDS, or UNIT_SECONDS in the unit tier (no database). Durations only order the files: a wrong one makes the run slower, never wrong.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';

const DEFAULT_SECONDS = 8;
const UNIT_SECONDS = 1;

function pragmas(path) {
  const head = readFileSync(path, 'utf8').slice(0, 1_000);
  const docblock = head.startsWith('/**') ? head.slice(0, head.indexOf('*/') + 2) : '';
  return { serial: /@serial\b/.test(docblock), heavy: /@heavy\b/.test(docblock) };
}

export default class PlannedSequencer extends Sequencer {
  constructor(options) {
    super(options);
    this.workers = Math.max(1, options.globalConfig?.maxWorkers ?? 1);
  }

  sort(tests) {
    let committed = {};
    try {
      committed = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8'));
    } catch {
      // No committed durations: every file counts as DEFAULT_SECONDS unless jest's cache knows better.
    }
    const planned = tests.map((test) => {
      const cached = this._getCache(test)[test.path]?.[1];
      const file = relative(test.context.config.rootDir, test.path);
      const unit = test.context.config.displayName?.name === 'unit';
      const seconds = cached != null ? cached / 1000 : (committed[file] ?? (unit ? UNIT_SECONDS : DEFAULT_SECONDS));
      return { test, file, seconds, unit, ...pragmas(test.path) };
    });
    const byLength = (a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file);
    const serial = planned.filter((p) => p.serial).sort(byLength);
    const unit = planned.filter((p) => p.unit).sort(byLength);
    const heavy = planned.filter((p) => p.heavy && !p.serial).sort(byLength);
    const ordinary = planned.filter((p) => !p.heavy && !p.serial && !p.unit).sort(byLength);

    // List scheduling on the run's workers (--maxWorkers): the next free worker takes a heavy file if the lane is free
    // by then, else the longest ordinary file left.
    const order = [];
    const freeAt = Array(this.workers).fill(0);
    let laneFreeAt = 0;
    while (heavy.length || ordinary.length) {
      const worker = freeAt.indexOf(Math.min(...freeAt));
      const now = freeAt[worker];
      const next = heavy.length && (laneFreeAt <= now || !ordinary.length) ? heavy.shift() : ordinary.shift();
      const start = next.heavy ? Math.max(now, laneFreeAt) : now;
      freeAt[worker] = start + next.seconds;
      if (next.heavy) laneFreeAt = freeAt[worker];
      order.push(next);
    }
    return [...serial, ...unit, ...order].map((p) => p.test);
  }
}
