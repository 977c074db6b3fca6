import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach } from 'vitest';

/** A request as a {@link LoopbackServer} saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  socket: Socket;
}

/** A throwaway HTTP server on 127.0.0.1, port 0, for transport tests the emulator cannot stage. */
export interface LoopbackServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/**
 * Starts a loopback server whose handler sees the parsed request (body read in full).
 * For misbehaviour the platform emulator does not model (hanging, echoing secrets).
 */
export async function startLoopbackServer(handler: (req: SeenRequest, res: ServerResponse) => void | Promise<void>): Promise<LoopbackServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, socket: req.socket };
      requests.push(seen);
      void handler(seen, res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port with nothing listening (connection refused). */
export async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Writes a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * For a test file of loopback servers: `server(handler)` starts one, and `defer(close)` registers
 * anything else to close (an API client); each test's servers and deferred closes are closed
 * after it, last first.
 */
export function loopbackTestScope(): { server: typeof startLoopbackServer; defer(close: () => Promise<void>): void } {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
  return {
    async server(handler) {
      const s = await startLoopbackServer(handler);
      cleanups.push(() => s.close());
      return s;
    },
    defer: (close) => void cleanups.push(close),
  };
}
