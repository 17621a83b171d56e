import 'reflect-metadata';
import { runCli } from './app/processes/cli.js';

// `node dist/cli.js <command>`. An entry file only starts its process: the commands are the composition's
// (app/processes/cli.ts), which wires each one's modules.
runCli(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
