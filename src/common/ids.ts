import { randomBytes, randomInt } from 'node:crypto';

/** `<prefix>` + 18 hex characters, the shape Voucherify uses for most ids (`cat_`, `lopp_`, `proj_`…). */
export function hexId(prefix: string, bytes = 9): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `<prefix>` + `length` base62 characters (`camp_` uses 24, `v_` uses 32). Unbiased: randomInt per char. */
export function base62Id(prefix: string, length: number): string {
  let id = prefix;
  for (let i = 0; i < length; i += 1) id += BASE62[randomInt(BASE62.length)];
  return id;
}
