import { hexId } from '../ids.js';

/**
 * This process's id as projects see it: `wrk_` and 18 random hex characters, drawn once per process. It is
 * what a diagnostic ping shows as `processed_by`, so that two pings can be told apart by the worker that ran
 * them without telling projects (tenants) the worker's host name or process id. The operator matches it to a
 * process: the worker's ready log line and its heartbeat (`node dist/cli.js worker-health`) carry it next to
 * the host and pid.
 */
export const WORKER_ID = hexId('wrk_');
