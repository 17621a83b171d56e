import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, MaxLength, Min } from 'class-validator';
import { DatabaseEnvironmentVariables } from './database-environment.js';

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value);

/** `host:port` pairs, comma-separated (IPv6 hosts in brackets). */
const HOST_PORT_LIST = /^\s*(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):\d{1,5}\s*(,\s*(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):\d{1,5}\s*)*$/;

/**
 * Where Redis is when it is not one server (docs/scaling.md "Redis"), and how a process stops. A class of its own,
 * between DatabaseEnvironmentVariables and EnvironmentVariables, so that the README's table and validation treat
 * them like every other variable.
 */
export class RedisEnvironmentVariables extends DatabaseEnvironmentVariables {
  // Sentinel: the sentinels to ask for the master (REDIS_URL then only gives the password, user, database and TLS).
  @IsOptional()
  @Matches(HOST_PORT_LIST, { message: 'REDIS_SENTINELS must be a comma-separated list of host:port (the sentinels)' })
  REDIS_SENTINELS?: string = undefined;

  // The master's name the sentinels monitor (`sentinel monitor <name> …`).
  @Matches(/^[A-Za-z0-9._-]{1,100}$/, { message: 'REDIS_SENTINEL_NAME must be 1-100 characters of letters, digits, ".", "_" or "-"' })
  REDIS_SENTINEL_NAME: string = 'mymaster';

  // The sentinels' own password (`requirepass` in sentinel.conf); the master's is REDIS_URL's.
  @IsOptional()
  @MaxLength(512, { message: 'REDIS_SENTINEL_PASSWORD must be at most 512 characters' })
  REDIS_SENTINEL_PASSWORD?: string = undefined;

  // Cluster: some of the cluster's nodes (the rest are discovered); QUEUE_PREFIX must then carry a hash tag ({…}).
  @IsOptional()
  @Matches(HOST_PORT_LIST, { message: 'REDIS_CLUSTER_NODES must be a comma-separated list of host:port (nodes of the cluster)' })
  REDIS_CLUSTER_NODES?: string = undefined;

  // After SIGTERM, how long the API goes on serving while /health/ready answers 503 (the balancer's time to notice).
  @Transform(toInt)
  @IsInt({ message: 'SHUTDOWN_DRAIN_MS must be an integer from 0 to 600000 (milliseconds), less than SHUTDOWN_TIMEOUT_MS' })
  @Min(0, { message: 'SHUTDOWN_DRAIN_MS must be an integer from 0 to 600000 (milliseconds), less than SHUTDOWN_TIMEOUT_MS' })
  @Max(600_000, { message: 'SHUTDOWN_DRAIN_MS must be an integer from 0 to 600000 (milliseconds), less than SHUTDOWN_TIMEOUT_MS' })
  SHUTDOWN_DRAIN_MS: number = 0;

  // The whole shutdown (drain included) at most; past it the process exits with code 1.
  @Transform(toInt)
  @IsInt({ message: 'SHUTDOWN_TIMEOUT_MS must be an integer from 1000 to 3600000 (milliseconds)' })
  @Min(1_000, { message: 'SHUTDOWN_TIMEOUT_MS must be an integer from 1000 to 3600000 (milliseconds)' })
  @Max(3_600_000, { message: 'SHUTDOWN_TIMEOUT_MS must be an integer from 1000 to 3600000 (milliseconds)' })
  SHUTDOWN_TIMEOUT_MS: number = 25_000;
}

/** `host:port,…` as ioredis wants it. */
export function parseHostPorts(value: string): { host: string; port: number }[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
    .map((item) => {
      const at = item.lastIndexOf(':');
      return { host: item.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(item.slice(at + 1)) };
    });
}
