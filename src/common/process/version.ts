import { readFileSync } from 'node:fs';

/**
 * The service's version, from package.json (two levels up from both src/common/process and
 * dist/common/process), for the ready line of each process.
 */
export const SERVICE_VERSION: string = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
