/**
 * What `kustomize build` (or `kubectl kustomize`) makes of deploy/, for the part of kustomize deploy/ uses: no
 * kustomize binary runs here (docs/decisions.md, "Kubernetes manifests (issue 39)"). Anything else in a kustomization.yaml
 * (a field, a generator option, a patch form) is refused, so that the test never checks less than a cluster
 * would get. Differences on purpose: generated names get no hash suffix (references are compared by name), and
 * an `envs` file is read from `<file>.example` when that exists (secrets.env is not committed, and a real one
 * in a working copy is never read by a test).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';

export type Resource = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [key: string]: unknown };
type Generator = { name: string; behavior?: 'create' | 'merge' | 'replace'; envs?: string[]; literals?: string[] };
type Kustomization = {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
  configMapGenerator?: Generator[];
  secretGenerator?: Generator[];
  generatorOptions?: { labels?: Record<string, string> };
  patches?: { path: string }[];
};

const FIELDS = new Set(['apiVersion', 'kind', 'namespace', 'labels', 'resources', 'images', 'configMapGenerator', 'secretGenerator', 'generatorOptions', 'patches']);

/** `KEY=value` lines; `#` comments and blank lines skipped (kustomize's env file format). */
export function readEnvFile(file: string): Record<string, string> {
  const path = existsSync(`${file}.example`) ? `${file}.example` : file;
  const entries: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const at = trimmed.indexOf('=');
    if (at <= 0) throw new Error(`${path}: not KEY=value: ${trimmed}`);
    entries[trimmed.slice(0, at)] = trimmed.slice(at + 1);
  }
  return entries;
}

export function renderKustomization(dir: string): Resource[] {
  const kustomization = load(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
  const unknown = Object.keys(kustomization).filter((field) => !FIELDS.has(field));
  if (unknown.length > 0) throw new Error(`${dir}/kustomization.yaml: ${unknown.join(', ')} not modelled by test/support/kustomize.ts`);
  if (kustomization.generatorOptions && Object.keys(kustomization.generatorOptions).some((option) => option !== 'labels')) throw new Error(`${dir}: generatorOptions other than labels`);

  const resources: Resource[] = [];
  for (const entry of kustomization.resources ?? []) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) resources.push(...renderKustomization(path));
    else resources.push(...(loadAll(readFileSync(path, 'utf8')).filter(Boolean) as Resource[]));
  }

  const generate = (kind: 'ConfigMap' | 'Secret', generators: Generator[] = []) => {
    for (const generator of generators) {
      const data: Record<string, string> = {};
      for (const file of generator.envs ?? []) Object.assign(data, readEnvFile(join(dir, file)));
      for (const literal of generator.literals ?? []) data[literal.slice(0, literal.indexOf('='))] = literal.slice(literal.indexOf('=') + 1);
      const existing = resources.find((r) => r.kind === kind && r.metadata.name === generator.name);
      const behavior = generator.behavior ?? 'create';
      if ((behavior === 'create') !== (existing === undefined)) throw new Error(`${dir}: ${kind} ${generator.name}: behavior ${behavior} ${existing ? 'but it exists' : 'but there is none to change'}`);
      if (existing && behavior === 'merge') Object.assign(existing.data as Record<string, string>, data);
      else if (existing) existing.data = data;
      else resources.push({ apiVersion: 'v1', kind, metadata: { name: generator.name, labels: { ...kustomization.generatorOptions?.labels } }, data });
    }
  };
  generate('ConfigMap', kustomization.configMapGenerator);
  generate('Secret', kustomization.secretGenerator);

  for (const { path } of kustomization.patches ?? []) {
    const patch = load(readFileSync(join(dir, path), 'utf8')) as Resource;
    const target = resources.find((r) => r.kind === patch.kind && r.metadata.name === patch.metadata.name);
    if (!target) throw new Error(`${dir}/${path}: no ${patch.kind} ${patch.metadata.name} to patch`);
    strategicMerge(target, patch);
  }

  for (const { name, newName, newTag } of kustomization.images ?? []) {
    for (const container of containersOf(resources)) {
      const [image, tag] = container.image.split(':');
      const newTagOrOld = newTag ?? tag;
      if (image === name) container.image = `${newName ?? image}${newTagOrOld ? `:${newTagOrOld}` : ''}`;
    }
  }
  for (const { pairs, includeSelectors, includeTemplates } of kustomization.labels ?? []) {
    if (includeSelectors || includeTemplates) throw new Error(`${dir}: labels on selectors or templates are not modelled`);
    for (const resource of resources) resource.metadata.labels = { ...resource.metadata.labels, ...pairs };
  }
  if (kustomization.namespace) for (const resource of resources) resource.metadata.namespace = kustomization.namespace;
  return resources;
}

/** Kubernetes' strategic merge for what patches here do: maps merge, lists of named items merge by name, the rest replaces. */
function strategicMerge(target: Record<string, unknown>, patch: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(patch)) {
    const current = target[key];
    if (Array.isArray(value) && Array.isArray(current) && value.every((item) => typeof (item as { name?: unknown })?.name === 'string')) {
      for (const item of value as Record<string, unknown>[]) {
        const same = (current as Record<string, unknown>[]).find((c) => c.name === item.name);
        if (same) strategicMerge(same, item);
        else current.push(item);
      }
    } else if (isMap(value) && isMap(current)) strategicMerge(current, value);
    else target[key] = value;
  }
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } };
export type Probe = { httpGet?: { path: string; port: number | string }; periodSeconds?: number; failureThreshold?: number };
export type Container = {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] }; sleep?: { seconds: number } } };
};
export type PodSpec = { containers: Container[]; initContainers?: Container[]; terminationGracePeriodSeconds?: number };

/** The pod template of a Deployment, StatefulSet, DaemonSet or Job. */
export function podSpecOf(resource: Resource): PodSpec | null {
  const spec = resource.spec as { template?: { spec: PodSpec }; jobTemplate?: { spec: { template: { spec: PodSpec } } } } | undefined;
  return spec?.template?.spec ?? spec?.jobTemplate?.spec.template.spec ?? null;
}

export function containersOf(resources: Resource[]): Container[] {
  return resources.flatMap((resource) => {
    const pod = podSpecOf(resource);
    return pod ? [...pod.containers, ...(pod.initContainers ?? [])] : [];
  });
}
