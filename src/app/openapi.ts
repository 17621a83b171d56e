import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

export const APP_ID_SCHEME = 'X-App-Id';
export const APP_TOKEN_SCHEME = 'X-App-Token';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Loyalty service API')
    .setDescription(
      'Self-hostable, Voucherify-compatible loyalty backend. Every /v1 and /v2 route needs the X-App-Id and X-App-Token headers. ' +
        'Every error has the body {code, key, message, details, request_id, resource_id?, resource_type?}.',
    )
    .setVersion('0.1.0')
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
  return document;
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
