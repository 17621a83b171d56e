// Runs shell commands side by side (`npm test`: the tests beside the lint and the type-check, which need no
// build): the first command's output is shown as it comes, each other one's in one piece when it ends; the
// exit code is the first failure's (0 when all succeed). `node scripts/run-parallel.mjs '<command>' '<command>' …`
import { spawn } from 'node:child_process';

const commands = process.argv.slice(2);
const started = Date.now();
const results = await Promise.all(
  commands.map(
    (command, i) =>
      new Promise((resolve) => {
        const child = spawn(command, { shell: true, stdio: ['ignore', i === 0 ? 'inherit' : 'pipe', i === 0 ? 'inherit' : 'pipe'] });
        let output = '';
        child.stdout?.on('data', (chunk) => (output += chunk));
        child.stderr?.on('data', (chunk) => (output += chunk));
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
