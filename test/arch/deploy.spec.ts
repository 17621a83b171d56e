/**
 * deploy/ (Kubernetes, kustomize) and docker/compose.scale.yml against the service itself, without a cluster or
 * Docker (docs/scaling.md, "Deploying on Kubernetes"): every variable they set is a setting the config service
 * knows and accepts, the probes reach the routes and ports the processes serve, the grace period covers the
 * shutdown, secret values come only from Secrets, one image runs everything and a Job migrates.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { ConfigError, loadConfig } from '../../src/config/app-config.js';
import { EnvironmentVariables } from '../../src/config/environment.js';
import { type Container, type PodSpec, type Resource, containersOf, podSpecOf, readEnvFile, renderKustomization } from '../support/kustomize.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');

const DEFAULTS = new EnvironmentVariables() as unknown as Record<string, unknown>;
const KNOWN = new Set(Object.keys(DEFAULTS));
/** Passwords (inside the URLs), keys and tokens: only ever from a Secret. */
const SECRET_SETTINGS = ['DATABASE_URL', 'DATABASE_SESSION_URL', 'REDIS_URL', 'REDIS_SENTINEL_PASSWORD', 'DATA_ENCRYPTION_KEY', 'DATA_ENCRYPTION_PREVIOUS_KEYS', 'METRICS_TOKEN', 'ADMIN_TOKEN', 'BOOTSTRAP_APP_ID', 'BOOTSTRAP_APP_TOKEN'];

const base = renderKustomization(join(ROOT, 'deploy/base'));
const overlay = renderKustomization(join(ROOT, 'deploy/overlays/example'));
const find = (resources: Resource[], kind: string, name: string) => {
  const found = resources.find((r) => r.kind === kind && r.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const workloads = (resources: Resource[]) => resources.filter((r) => podSpecOf(r) !== null);
const pod = (name: string) => podSpecOf(workloads(overlay).find((r) => r.metadata.name === name)!)!;
const only = (spec: PodSpec) => {
  expect(spec.containers).toHaveLength(1);
  return spec.containers[0];
};

type Source = 'ConfigMap' | 'Secret' | 'literal';
/** A container's environment as the kubelet sets it: envFrom in order, then env, each overriding the one before. */
function environmentOf(container: Container, resources: Resource[]): Map<string, { value: string; source: Source }> {
  const env = new Map<string, { value: string; source: Source }>();
  const data = (kind: 'ConfigMap' | 'Secret', name: string) => (find(resources, kind, name).data ?? {}) as Record<string, string>;
  for (const from of container.envFrom ?? []) {
    const [kind, name] = from.configMapRef ? (['ConfigMap', from.configMapRef.name] as const) : (['Secret', from.secretRef!.name] as const);
    for (const [key, value] of Object.entries(data(kind, name))) env.set(key, { value, source: kind });
  }
  for (const { name, value, valueFrom } of container.env ?? []) {
    if (valueFrom?.secretKeyRef) env.set(name, { value: data('Secret', valueFrom.secretKeyRef.name)[valueFrom.secretKeyRef.key], source: 'Secret' });
    else if (valueFrom?.configMapKeyRef) env.set(name, { value: data('ConfigMap', valueFrom.configMapKeyRef.name)[valueFrom.configMapKeyRef.key], source: 'ConfigMap' });
    else env.set(name, { value: value ?? '', source: 'literal' });
  }
  return env;
}

/** What the config service makes of an environment, alone (the test process's own variables left out). */
function configOf(env: Record<string, string>) {
  return loadConfig({ ...Object.fromEntries([...KNOWN].map((name) => [name, ''])), ...env });
}

/** The example's placeholders replaced by values of the right form, as an operator would. */
function filledIn(env: Record<string, string>): Record<string, string> {
  const filled: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name === 'DATA_ENCRYPTION_KEY' && value === 'CHANGE-ME') filled[name] = randomBytes(32).toString('base64');
    else if (value === 'CHANGE-ME') filled[name] = randomBytes(24).toString('hex');
    else filled[name] = value.replaceAll('CHANGE-ME', 'secret');
  }
  return filled;
}

const setting = (env: Record<string, string>, name: string) => Number(env[name] || DEFAULTS[name]);
const plain = (env: Map<string, { value: string }>) => Object.fromEntries([...env].map(([name, { value }]) => [name, value]));

describe('deploy/: the settings', () => {
  it('every variable set anywhere is a setting the config service knows', () => {
    const allowed = KNOWN;
    const unknown = new Set<string>();
    for (const resource of [...base, ...overlay]) {
      if (resource.kind === 'ConfigMap' || resource.kind === 'Secret') Object.keys(resource.data as object).forEach((name) => allowed.has(name) || unknown.add(`${resource.kind} ${resource.metadata.name}: ${name}`));
    }
    for (const container of containersOf(overlay)) for (const name of environmentOf(container, overlay).keys()) if (!allowed.has(name)) unknown.add(`${container.name}: ${name}`);
    expect([...unknown]).toEqual([]);
  });

  it('the config service accepts the environment of every process, once the placeholders are replaced', () => {
    for (const container of containersOf(overlay)) {
      const env = filledIn(plain(environmentOf(container, overlay)));
      expect(() => configOf(env)).not.toThrow();
    }
  });

  it('and refuses the placeholders themselves: the example secrets cannot be deployed by mistake', () => {
    const env = plain(environmentOf(only(pod('loyalty-api')), overlay));
    expect(() => configOf(env)).toThrow(ConfigError);
    try {
      configOf(env);
    } catch (error) {
      expect((error as ConfigError).problems.join('\n')).toMatch(/DATA_ENCRYPTION_KEY|METRICS_TOKEN|ADMIN_TOKEN/);
    }
  });

  it('secret values come only from Secrets; no ConfigMap carries a password', () => {
    const leaks: string[] = [];
    for (const resource of overlay.filter((r) => r.kind === 'ConfigMap')) {
      for (const [name, value] of Object.entries(resource.data as Record<string, string>)) {
        if (SECRET_SETTINGS.includes(name) || /:\/\/[^/@\s]*:[^/@\s]*@/.test(value)) leaks.push(`ConfigMap ${resource.metadata.name}: ${name}`);
      }
    }
    for (const container of containersOf(overlay)) {
      for (const [name, { source }] of environmentOf(container, overlay)) if (SECRET_SETTINGS.includes(name) && source !== 'Secret') leaks.push(`${container.name}: ${name} from ${source}`);
    }
    expect(leaks).toEqual([]);
    expect(base.filter((r) => r.kind === 'Secret')).toEqual([]);
    const example = readEnvFile(join(ROOT, 'deploy/overlays/example/secrets.env.example'));
    expect(Object.keys(example).sort()).toEqual([...SECRET_SETTINGS].sort());
    expect(Object.entries(example).filter(([, value]) => value !== '' && !value.includes('CHANGE-ME'))).toEqual([]);
    expect(() => execFileSync('git', ['check-ignore', '-q', 'deploy/overlays/example/secrets.env'], { cwd: ROOT })).not.toThrow();
  });

  it('every ConfigMap and Secret a container reads exists, labelled to be applied with the Job, before the rest', () => {
    for (const container of containersOf(overlay)) expect(() => environmentOf(container, overlay)).not.toThrow();
    const component = (resources: Resource[]) => resources.map((r) => `${r.kind}=${r.metadata.labels?.['app.kubernetes.io/component']}`).sort();
    expect(component(overlay.filter((r) => r.kind === 'ConfigMap' || r.kind === 'Secret'))).toEqual(['ConfigMap=config', 'Secret=config']);
    expect(component(overlay.filter((r) => r.kind === 'Job'))).toEqual(['Job=migrate']);
  });
});

/** The API's routes: @Controller('health') with @Get() and @Get('ready'), no global prefix. */
function apiHealthRoutes(): string[] {
  const source = text('src/health/health.controller.ts');
  const prefix = /@Controller\('([^']*)'\)/.exec(source)![1];
  return [...source.matchAll(/@Get\((?:'([^']*)')?\)/g)].map(([, path]) => `/${[prefix, path].filter(Boolean).join('/')}`);
}
function workerRoutes(): string[] {
  return [...text('src/metrics/worker-metrics.server.ts').matchAll(/path [!=]== '(\/[^']*)'/g)].map(([, path]) => path);
}

function probedPort(container: Container, port: number | string): number {
  if (typeof port === 'number') return port;
  const named = container.ports?.find((p) => p.name === port);
  if (!named) throw new Error(`${container.name}: no port named ${port}`);
  return named.containerPort;
}

describe('deploy/: the processes', () => {
  it('no global prefix moves the API routes', () => {
    const sources = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    expect(sources.length).toBeGreaterThan(100);
    expect(sources.filter((file) => text(join('src', file)).includes('setGlobalPrefix'))).toEqual([]);
  });

  it.each([
    ['loyalty-api', 'PORT', { startupProbe: '/health', livenessProbe: '/health', readinessProbe: '/health/ready' }],
    ['loyalty-worker', 'WORKER_METRICS_PORT', { startupProbe: '/health', livenessProbe: '/health', readinessProbe: '/health' }],
  ] as const)('%s: the probes ask the routes it serves, on the port it listens on (%s)', (name, portSetting, expected) => {
    const container = only(pod(name));
    const env = plain(environmentOf(container, overlay));
    const routes = name === 'loyalty-api' ? apiHealthRoutes() : workerRoutes();
    for (const [probe, path] of Object.entries(expected)) {
      const httpGet = container[probe as 'startupProbe']?.httpGet;
      if (!httpGet) throw new Error(`${name}: no ${probe} over HTTP`);
      expect([probe, httpGet.path]).toEqual([probe, path]);
      expect(routes).toContain(httpGet.path);
      expect([probe, probedPort(container, httpGet.port)]).toEqual([probe, setting(env, portSetting)]);
    }
    expect(container.ports?.map((p) => p.containerPort)).toEqual([setting(env, portSetting)]);
  });

  it.each(['loyalty-api', 'loyalty-worker'])('%s: grace period ≥ preStop pause + SHUTDOWN_DRAIN_MS + SHUTDOWN_TIMEOUT_MS', (name) => {
    const spec = pod(name);
    const container = only(spec);
    const env = plain(environmentOf(container, overlay));
    const preStop = container.lifecycle?.preStop;
    const pause = preStop?.sleep?.seconds ?? (preStop?.exec?.command[0] === 'sleep' ? Number(preStop.exec.command[1]) : 0);
    const needed = pause + (setting(env, 'SHUTDOWN_DRAIN_MS') + setting(env, 'SHUTDOWN_TIMEOUT_MS')) / 1000;
    expect(spec.terminationGracePeriodSeconds ?? 30).toBeGreaterThanOrEqual(needed);
    expect(setting(env, 'SHUTDOWN_DRAIN_MS')).toBeLessThan(setting(env, 'SHUTDOWN_TIMEOUT_MS'));
    // The API is behind Services and an ingress: it pauses before SIGTERM while they take it out.
    if (name === 'loyalty-api') expect(pause).toBeGreaterThan(0);
  });

  it('one image for every container, the overlay\'s', () => {
    expect(new Set(containersOf(overlay).map((c) => c.image))).toEqual(new Set(['registry.example.com/loyalty-service:0.1.0']));
    expect(workloads(overlay).map((r) => `${r.kind} ${r.metadata.name}`).sort()).toEqual(['Deployment loyalty-api', 'Deployment loyalty-worker', 'Job loyalty-migrate']);
  });

  it('the API runs dist/main.js, the worker dist/worker.js, the Job `cli.js migrate`; nothing else migrates', () => {
    const command = (name: string) => [...(only(pod(name)).command ?? []), ...(only(pod(name)).args ?? [])].join(' ');
    expect(command('loyalty-api')).toBe('node dist/main.js');
    expect(command('loyalty-worker')).toBe('node dist/worker.js');
    expect(command('loyalty-migrate')).toBe('node dist/cli.js migrate');
    expect(['src/main.ts', 'src/worker.ts', 'src/cli.ts'].filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
    expect(text('src/app/processes/cli.ts')).toContain("case 'migrate':");
    expect((pod('loyalty-migrate') as PodSpec & { restartPolicy?: string }).restartPolicy).toBe('Never');
    for (const name of ['loyalty-api', 'loyalty-worker']) expect([name, environmentOf(only(pod(name)), overlay).get('MIGRATE_ON_START')?.value]).toEqual([name, 'false']);
    expect(text('docker/Dockerfile')).toMatch(/^CMD \["node", "dist\/main\.js"\]$/m);
  });

  it('PodDisruptionBudgets and Services select the pods; the HPA scales the API on CPU, which owns its replicas', () => {
    const labelsOf = (name: string) => (find(overlay, 'Deployment', name).spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    const selects = (selector: Record<string, string>, name: string) => Object.entries(selector).every(([key, value]) => labelsOf(name)[key] === value);
    for (const name of ['loyalty-api', 'loyalty-worker']) {
      expect(selects((find(overlay, 'PodDisruptionBudget', name).spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels, name)).toBe(true);
    }
    expect(selects((find(overlay, 'Service', 'loyalty-api').spec as { selector: Record<string, string> }).selector, 'loyalty-api')).toBe(true);
    expect(selects((find(overlay, 'Service', 'loyalty-worker-metrics').spec as { selector: Record<string, string> }).selector, 'loyalty-worker')).toBe(true);
    const hpa = find(overlay, 'HorizontalPodAutoscaler', 'loyalty-api').spec as { scaleTargetRef: { kind: string; name: string }; minReplicas: number; maxReplicas: number; metrics: { resource: { name: string } }[] };
    expect(hpa.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'loyalty-api' });
    expect(hpa.metrics.map((m) => m.resource.name)).toEqual(['cpu']);
    expect(hpa.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.maxReplicas).toBe(20); // the overlay's patch
    expect((find(overlay, 'Deployment', 'loyalty-api').spec as { replicas?: number }).replicas).toBeUndefined();
    expect(only(pod('loyalty-api')) as Container & { resources?: { requests?: { cpu?: string } } }).toHaveProperty('resources.requests.cpu');
  });

  it('the example overlay: PgBouncer in transaction mode with a session URL, Redis under Sentinel', () => {
    const env = filledIn(plain(environmentOf(only(pod('loyalty-api')), overlay)));
    expect(env).toMatchObject({ DATABASE_POOLER: 'transaction', DATABASE_PREPARED_STATEMENTS: 'false', REDIS_SENTINEL_NAME: 'mymaster' });
    expect(env.DATABASE_URL).not.toBe(env.DATABASE_SESSION_URL);
    expect(env.REDIS_SENTINELS.split(',')).toHaveLength(3);
  });
});

type ComposeService = { image?: string; command?: string[] | string; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }> | string[]; deploy?: { replicas?: number }; stop_grace_period?: string };

describe('docker/compose.scale.yml', () => {
  const compose = load(text('docker/compose.scale.yml')) as { services: Record<string, ComposeService> };
  const app = Object.entries(compose.services).filter(([, service]) => service.image === 'loyalty-service:local');
  const command = (service: ComposeService) => (Array.isArray(service.command) ? service.command.join(' ') : service.command);
  /** Compose's interpolation: ${X:-default} → default, ${X:?message} → a value of the right form. */
  const interpolated = (env: Record<string, string>) =>
    Object.fromEntries(Object.entries(env).map(([name, value]) => [name, String(value).replace(/\$\{(\w+):([-?])([^}]*)\}/g, (_match, _name, kind: string, rest: string) => (kind === '-' ? rest : randomBytes(24).toString('hex')))]));

  it('3 APIs, 2 workers and a migrate step, all of one image built from docker/Dockerfile', () => {
    const byCommand = (line: string) => app.filter(([, service]) => command(service) === line).map(([name, service]) => [name, service.deploy?.replicas ?? 1]);
    expect(byCommand('node dist/main.js')).toEqual([['api1', 1], ['api2', 1], ['api3', 1]]);
    expect(byCommand('node dist/worker.js')).toEqual([['worker', 2]]);
    expect(byCommand('node dist/cli.js migrate')).toEqual([['migrate', 1]]);
    expect(compose.services.migrate).toMatchObject({ build: { dockerfile: 'docker/Dockerfile' } });
    for (const [name, service] of app.filter(([name]) => name !== 'migrate')) {
      expect([name, (service.depends_on as Record<string, { condition: string }>).migrate]).toEqual([name, { condition: 'service_completed_successfully' }]);
    }
  });

  it('the same setting names as deploy/, known to the config service, and accepted by it', () => {
    const k8s = new Set(containersOf(overlay).flatMap((c) => [...environmentOf(c, overlay).keys()]));
    for (const [name, service] of app) {
      const env = interpolated(service.environment ?? {});
      expect([name, Object.keys(env).filter((setting) => !k8s.has(setting))]).toEqual([name, []]);
      expect([name, Object.keys(env).filter((setting) => !KNOWN.has(setting))]).toEqual([name, []]);
      expect(() => configOf(env)).not.toThrow();
      expect(env).toMatchObject({ DATABASE_POOLER: 'transaction', DATABASE_PREPARED_STATEMENTS: 'false', MIGRATE_ON_START: 'false', REDIS_SENTINEL_NAME: 'mymaster' });
      expect(env.REDIS_SENTINELS.split(',').map((s) => s.split(':')[0])).toEqual(['sentinel1', 'sentinel2', 'sentinel3']);
      expect(new URL(env.DATABASE_URL).host).toBe('pgbouncer:6432');
      expect(new URL(env.DATABASE_SESSION_URL).host).toBe('postgres:5432');
      if (service.stop_grace_period) expect(Number(service.stop_grace_period.replace(/s$/, '')) * 1000).toBeGreaterThanOrEqual(setting(env, 'SHUTDOWN_DRAIN_MS') + setting(env, 'SHUTDOWN_TIMEOUT_MS'));
    }
  });

  it('PgBouncer in transaction mode without ignore_startup_parameters; haproxy over the 3 APIs on /health/ready; Redis, a replica and 3 sentinels', () => {
    const pgbouncer = text('docker/scale/pgbouncer.ini');
    expect(pgbouncer).toMatch(/^pool_mode = transaction$/m);
    expect(pgbouncer).not.toMatch(/^\s*ignore_startup_parameters/m);
    const haproxy = text('docker/scale/haproxy.cfg');
    expect(haproxy).toMatch(/^\s*option httpchk GET \/health\/ready$/m);
    expect([...haproxy.matchAll(/^\s*server (\S+) (\S+) check$/gm)].map(([, , address]) => address)).toEqual(['api1:3000', 'api2:3000', 'api3:3000']);
    expect(apiHealthRoutes()).toContain('/health/ready');
    const redis = Object.entries(compose.services).filter(([, s]) => s.image === 'redis:7');
    expect(redis.filter(([, s]) => command(s)?.includes('--replicaof redis 6379'))).toHaveLength(1);
    expect(redis.filter(([, s]) => command(s)?.includes('sentinel monitor mymaster redis 6379 2'))).toHaveLength(3);
  });
});
