/** True when a query failed on a unique constraint (optionally a given one). */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const driverError = (error as { driverError?: { code?: string; constraint?: string } } | null)?.driverError;
  return driverError?.code === '23505' && (constraint === undefined || driverError.constraint === constraint);
}
