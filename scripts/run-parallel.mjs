// Runs shell commands side by side (`npm test`: the build and lint beside the type-check, which needs no
// build): each one's output is printed in one piece when it ends, then the exit code is the first failure's
// (0 when all succeed). `node scripts/run-parallel.mjs '<command>' '<command>' …`
import { spawn } from 'node:child_process';

const commands = process.argv.slice(2);
const started = Date.now();
const results = await Promise.all(
  commands.map(
    (command) =>
      new Promise((resolve) => {
        const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('close', (code, signal) => {
          const seconds = ((Date.now() - started) / 1000).toFixed(0);
          process.stdout.write(output);
          if (code !== 0) process.stdout.write(`\n✗ ${command}: ${signal ?? `exit code ${code}`} after ${seconds} s\n`);
          else if (process.env.RUN_PARALLEL_TIMES) process.stdout.write(`✓ ${command}: ${seconds} s\n`);
          resolve(code ?? 1);
        });
      }),
  ),
);
process.exitCode = results.find((code) => code !== 0) ?? 0;
