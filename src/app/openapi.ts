import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { SERVICE_VERSION } from '../common/process/version.js';

export const APP_ID_SCHEME = 'X-App-Id';
export const APP_TOKEN_SCHEME = 'X-App-Token';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Loyalty service API')
    .setDescription(
      'Self-hostable, Voucherify-compatible loyalty backend. Every /v1 and /v2 route needs the X-App-Id and X-App-Token headers. ' +
        'Every error has the body {code, key, message, details, request_id, resource_id?, resource_type?}.',
    )
    .setVersion(SERVICE_VERSION)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-App-Id', description: 'Application id' }, APP_ID_SCHEME)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-App-Token', description: 'Application secret token' }, APP_TOKEN_SCHEME)
    .addSecurityRequirements({ [APP_ID_SCHEME]: [], [APP_TOKEN_SCHEME]: [] })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  // Health routes are public: drop the global security requirement there.
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/health')) continue;
    for (const operation of Object.values(item)) {
      if (operation && typeof operation === 'object' && 'responses' in operation) operation.security = [];
    }
  }
  describeRateLimits(document);
  return document;
}

const RATE_LIMIT_HEADERS = {
  'X-Rate-Limit-Limit': 'Size of the project\'s bucket: the requests it can make at once (twice RATE_LIMIT_PER_SECOND).',
  'X-Rate-Limit-Remaining': 'Requests left in the bucket after this one; it refills at RATE_LIMIT_PER_SECOND.',
  'X-Rate-Limit-Retry': 'Unix time (seconds) from which the next request is accepted.',
} as const;

/**
 * Every keyed operation (all but the public ones) is counted by the project's rate limiter: its answers
 * carry the X-Rate-Limit-* headers and it can answer 429, as can the limit on failed authentications per
 * client address. Added here once rather than on every controller.
 */
function describeRateLimits(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  components.headers = {
    ...components.headers,
    ...Object.fromEntries(Object.entries(RATE_LIMIT_HEADERS).map(([name, description]) => [name, { description, schema: { type: 'integer' } }])),
    'Retry-After': { description: 'Seconds to wait before the next request is accepted (at least 1).', schema: { type: 'integer' } },
  };
  const rateHeaders = Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
      if (Array.isArray(operation.security) && operation.security.length === 0) continue;
      for (const [status, response] of Object.entries(operation.responses as Record<string, { headers?: object }>)) {
        if (status.startsWith('2') && !('$ref' in response)) response.headers = { ...response.headers, ...rateHeaders };
      }
      operation.responses['429'] = {
        description:
          'The project\'s rate limit is used up, or the client address made more than AUTH_FAILURE_LIMIT failed authentications a minute (`too_many_requests`); retry after `Retry-After` seconds.',
        headers: { ...rateHeaders, 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/ErrorResponseDto' },
            example: {
              code: 429,
              key: 'too_many_requests',
              message: 'Too many requests',
              details: "The project's rate limit (300 requests per second, bursts of 600) is used up; retry in 1 s",
              request_id: 'v-0c12951ec58e67577e',
            },
          },
        },
      };
    }
  }
}

/** Recursively sorts object keys so the committed document only changes when the API does. */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  ) as T;
}

export function serializeOpenApi(document: OpenAPIObject): string {
  return `${JSON.stringify(sortKeys(document), null, 2)}\n`;
}

export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), { jsonDocumentUrl: 'docs-json', customSiteTitle: 'Loyalty service API' });
}
