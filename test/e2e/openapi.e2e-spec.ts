import { readFile } from 'node:fs/promises';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { buildOpenApiDocument, serializeOpenApi } from '../../src/app/openapi.js';
import { startApi } from '../support/harness.js';

describe('openapi/openapi.json', () => {
  let app: NestExpressApplication;
  beforeAll(async () => {
    app = await startApi();
  });
  afterAll(() => app.close());

  it('is exactly what the code generates (run `npm run openapi` after an API change)', async () => {
    const committed = await readFile(new URL('../../openapi/openapi.json', import.meta.url), 'utf8');
    expect(serializeOpenApi(buildOpenApiDocument(app))).toBe(committed);
  });

  it('describes every route with its error responses and both security headers', () => {
    const document = buildOpenApiDocument(app);
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op: op as { responses: Record<string, unknown>; security?: unknown[] } })),
    );
    expect(operations.length).toBeGreaterThan(0);
    for (const { path, op } of operations) {
      expect(op.responses['500']).toBeDefined();
      if (path.startsWith('/v1') || path.startsWith('/v2')) {
        expect(op.responses['401']).toBeDefined();
        expect(op.security ?? document.security).toEqual([{ 'X-App-Id': [], 'X-App-Token': [] }]);
      }
    }
  });
});
