import { jest } from '@jest/globals';
import { runCli } from '../../src/app/processes/cli.js';
import { loadConfig } from '../../src/config/app-config.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

let last: Promise<unknown> = Promise.resolve();

/**
 * `node dist/cli.js <args>` in this test process: the `runCli` that src/cli.ts runs, its stdout and stderr
 * captured, and a rejection answered as src/cli.ts answers it (code 1, the message on stderr). A real CLI
 * process costs a Node start and Nest's modules whatever the command; here a command costs its own work.
 * `env` is laid over process.env for the call (runCli reads its configuration there). Calls run one at a
 * time, since they capture the process's streams; two commands at once, and what only a process shows (the
 * entry file's exit code and message), stay real processes (processes.e2e, seed.e2e's first refusal,
 * balance-races' two time zone changes at once).
 */
export function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const run = last.then(() => runInProcess(args, env));
  last = run.catch(() => undefined);
  return run;
}

/** As {@link cli}, with the command's stdout when it succeeds; otherwise rejects with its code and stderr. */
export async function cliOk(args: string[], env: Record<string, string> = {}): Promise<string> {
  const result = await cli(args, env);
  if (result.code !== 0) throw Object.assign(new Error(`cli.js ${args.join(' ')} exited ${result.code}: ${result.stderr}`), result);
  return result.stdout;
}

async function runInProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  const saved = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries({ LOG_LEVEL: 'warn', ...env })) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  let stdout = '';
  let stderr = '';
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  try {
    // runCli ends the process on a configuration it refuses (loadConfigOrExit), which here would end the jest
    // worker: such a configuration is answered as the process would answer it, without running the command.
    loadConfig();
    await runCli(args);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } catch (error) {
    return { code: 1, stdout, stderr: `${stderr}${error instanceof Error ? error.message : String(error)}\n` };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = exitCode;
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
