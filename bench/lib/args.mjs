// The benchmarks' command-line numbers.

/** `value` as a positive whole number (underscores allowed: 1_000_000), or an error naming the option. */
export function positive(value, name) {
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number; got '${value}'`);
  return n;
}
