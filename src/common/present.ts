/**
 * `{ [key]: value }`, or nothing when the value is null or undefined: for answer fields that Voucherify's
 * schemas type as a plain string or object and its examples leave out when there is no value (a null
 * there makes a typed client's deserializer fail). Spread it into the answer: `...present('banner', x)`.
 */
export function present<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return value === null || value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
