import { useStack } from '../support/fixture.js';

describe('health', () => {
  const stack = useStack();

  it('GET /health answers without keys', async () => {
    const res = await stack.http().get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /health/ready checks PostgreSQL and Redis', async () => {
    const res = await stack.http().get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', checks: { postgres: 'up', redis: 'up' } });
  });

  it('serves Swagger UI at /docs and the document at /docs-json', async () => {
    const ui = await stack.http().get('/docs/');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
    const doc = await stack.http().get('/docs-json');
    expect(doc.status).toBe(200);
    expect(doc.body.components.securitySchemes).toEqual({
      'X-App-Id': expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-App-Id' }),
      'X-App-Token': expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-App-Token' }),
    });
  });
});
