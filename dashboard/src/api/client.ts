import createClient, { type Middleware } from 'openapi-fetch';
import { forgetKey, readKey } from '../session';
import type { components, paths } from './schema';

// schema.d.ts is generated from openapi/openapi.json by `npm run build` (openapi-typescript).
export type Schemas = components['schemas'];
export type ErrorBody = Schemas['ErrorResponseDto'];
export type Distribution = Schemas['DistributionDto'];
export type Delivery = Schemas['DeliveryDto'];
export type DeliveryDetail = Schemas['DeliveryDetailDto'];

/** A failed call, carrying the API's error body (docs/errors.md) so pages can show its message as is. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly body: Partial<ErrorBody>,
  ) {
    super(body.message ?? `HTTP ${status}`);
    this.name = 'ApiProblem';
  }
}

let expiredNotice: string | null = null;

/** Why the last session ended by itself (the API refused the key), once. */
export function takeExpiredNotice(): string | null {
  const notice = expiredNotice;
  expiredNotice = null;
  return notice;
}

// Every call carries the signed-in key; a 401 to a call made with it means the key was revoked or rotated:
// forget it and go back to the sign-in form with the API's message.
const auth: Middleware = {
  onRequest({ request }) {
    const key = readKey();
    if (key && !request.headers.has('X-App-Id')) {
      request.headers.set('X-App-Id', key.appId);
      request.headers.set('X-App-Token', key.token);
    }
    return request;
  },
  async onResponse({ request, response }) {
    const key = readKey();
    if (response.status === 401 && key && request.headers.get('X-App-Token') === key.token) {
      const body = (await response.clone().json().catch(() => ({}))) as Partial<ErrorBody>;
      expiredNotice = `${body.message ?? 'Unauthorized'}: the API refused the key of this session. Sign in again.`;
      forgetKey();
    }
    return undefined;
  },
};

/**
 * Query strings as the API reads them: nested objects as brackets (filters[status][conditions][$is]=ACTIVE)
 * at any depth, arrays as repeated keys (order=a&order=b), empty values left out.
 */
export function serializeQuery(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  const add = (key: string, value: unknown): void => {
    if (value === undefined || value === null || value === '') return;
    if (Array.isArray(value)) for (const item of value) add(key, item);
    else if (typeof value === 'object') for (const [name, inner] of Object.entries(value)) add(`${key}[${name}]`, inner);
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') params.append(key, String(value));
  };
  for (const [key, value] of Object.entries(query)) add(key, value);
  return params.toString();
}

export const api = createClient<paths>({ baseUrl: location.origin, querySerializer: serializeQuery, cache: 'no-store' });
api.use(auth);

interface CallResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a call, or an ApiProblem with the API's error body (or a network failure as status 0). */
export async function call<T>(request: Promise<CallResult<T>>): Promise<T> {
  let result: CallResult<T>;
  try {
    result = await request;
  } catch (error) {
    throw new ApiProblem(0, { message: 'Cannot reach the API', details: error instanceof Error ? error.message : String(error) });
  }
  if (result.error !== undefined || !result.response.ok) {
    const body = typeof result.error === 'object' && result.error !== null ? (result.error as Partial<ErrorBody>) : { message: typeof result.error === 'string' && result.error ? result.error : result.response.statusText };
    throw new ApiProblem(result.response.status, body);
  }
  return result.data as T;
}

/** Problems in a 400's details, one per property it names ("target_url must be …; name is required"). */
export function fieldErrors(problem: ApiProblem, fields: readonly string[]): { byField: Record<string, string>; rest: string[] } {
  const byField: Record<string, string> = {};
  const rest: string[] = [];
  const parts = (problem.body.details ?? '').split('; ').filter(Boolean);
  for (const part of parts) {
    const field = fields.find((name) => part === name || [' ', '.', '['].some((sep) => part.startsWith(name + sep)));
    if (field && !byField[field]) byField[field] = part;
    else rest.push(part);
  }
  return { byField, rest };
}
