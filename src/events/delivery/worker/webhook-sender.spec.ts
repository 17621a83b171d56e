import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AddressGuard } from '../ssrf-guard.js';
import { until } from '../../../../test/support/until.js';
import { WebhookSender } from './webhook-sender.js';

/** A receiver answering 200 at once, with the client sockets it has open. */
async function receiver(): Promise<{ server: Server; url: string; open: Set<Socket> }> {
  const open = new Set<Socket>();
  const server = createServer({ keepAliveTimeout: 60_000 }, (_req, res) => res.writeHead(200).end('ok'));
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, open };
}


describe('WebhookSender keep-alive sockets (issue 26)', () => {
  const guard = new AddressGuard(['127.0.0.1/32']);
  const request = (url: string) => ({ url, headers: {}, body: '{}', timeoutMs: 5_000 });

  it('closes a kept-alive socket left idle for the configured time, and reuses it before', async () => {
    const { server, url, open } = await receiver();
    const sender = new WebhookSender(guard, 400);
    try {
      expect((await sender.send(request(url))).statusCode).toBe(200);
      expect((await sender.send(request(url))).statusCode).toBe(200);
      // Both requests went over one kept-alive connection, still open just after.
      expect(open.size).toBe(1);
      const idleFrom = Date.now();
      await until(() => open.size === 0, { timeoutMs: 10_000, intervalMs: 20 });
      expect(Date.now() - idleFrom).toBeGreaterThanOrEqual(300);
    } finally {
      sender.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('keeps at most 64 idle sockets per host:port after a burst', async () => {
    const { server, url, open } = await receiver();
    const sender = new WebhookSender(guard, 60_000);
    try {
      const answers = await Promise.all(Array.from({ length: 100 }, () => sender.send(request(url))));
      expect(answers.every((a) => a.statusCode === 200)).toBe(true);
      await until(() => open.size <= 64, { intervalMs: 20 });
      expect(open.size).toBeGreaterThan(0);
    } finally {
      sender.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
