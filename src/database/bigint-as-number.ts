import type { ValueTransformer } from 'typeorm';

/**
 * A bigint column read as a JavaScript number: node-postgres hands bigints over as strings. For columns whose
 * values stay within 2^53 - 1 (amounts in minor units; card points, capped there by a check constraint).
 */
export const BIGINT_AS_NUMBER: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
