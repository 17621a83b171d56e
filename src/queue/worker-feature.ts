import { DiscoveryService } from '@nestjs/core';
import type { DynamicModule, ModuleMetadata, Type } from '@nestjs/common';
import type { QueueName } from './queue.definitions.js';
import type { SweepDefinition } from './sweeps.js';

/** A feature's part of the worker process: its processors (and what they need), its sweeps and loops. */
export interface WorkerFeature<Q extends QueueName> extends DynamicModule {
  /** The queues its processors serve, for the compiler only (workerFeatures). */
  readonly queues?: readonly Q[];
}

type QueueOf<P> = P extends Type<{ readonly queue: infer Q }> ? Q : never;

/** A feature's worker module: `module` with these imports and providers, and its queue processors (QueueProcessor). */
export function workerFeature<P extends Type<{ readonly queue: QueueName }>>(module: Type, metadata: Pick<ModuleMetadata, 'imports' | 'providers'> & { processors: readonly P[] }): WorkerFeature<QueueOf<P>> {
  return { module, imports: metadata.imports, providers: [...(metadata.providers ?? []), ...metadata.processors] };
}

type Unserved<F> = Exclude<QueueName, F extends WorkerFeature<infer Q> ? Q : never>;

/** The worker's features; does not compile while a queue has no processor among them. */
export function workerFeatures<F extends WorkerFeature<QueueName>>(features: F[], ..._unserved: [Unserved<F>] extends [never] ? [] : [queueWithoutProcessor: Unserved<F>]): DynamicModule[] {
  return features;
}

const SWEEP = DiscoveryService.createDecorator<true>();
const LOOP = DiscoveryService.createDecorator<true>();

/** Registers a provider as one of the worker's sweeps (started and stopped by the worker's life cycle). */
export function WorkerSweep(): (target: Type<SweepDefinition>) => void {
  return (target) => SWEEP(true)(target);
}

/**
 * Something the worker runs as long as it lives (webhook relay and dispatcher): started before the sweeps,
 * stopped after them at shutdown, before the queue workers close.
 */
export interface WorkerLoop {
  start(): void;
  stop(): Promise<void>;
}

/** Registers a provider as one of the worker's loops. */
export function WorkerLoopProvider(): (target: Type<WorkerLoop>) => void {
  return (target) => LOOP(true)(target);
}

/** The registered sweeps and loops, and the queue processors, of the process. */
export function workerParts(discovery: DiscoveryService): { sweeps: SweepDefinition[]; loops: WorkerLoop[] } {
  const instances = <T>(key: string) => discovery.getProviders({ metadataKey: key }).map((wrapper) => wrapper.instance as T);
  return { sweeps: instances<SweepDefinition>(SWEEP.KEY), loops: instances<WorkerLoop>(LOOP.KEY) };
}
