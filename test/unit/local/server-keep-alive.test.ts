/**
 * The local host's API server (and s3rver, which functions/local/idle-connections.ts sets alike):
 * a client reusing an idle connection is answered even when the host's event loop stalls for
 * seconds after the request was sent (units analysing in-process on a busy machine). With Node's
 * default 5 s keep-alive, the expired idle timer ran before the request was read and the
 * connection was reset under the client (ECONNRESET, seen in CI).
 */
import { once } from 'node:events';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiServer } from '../../../functions/local/server.js';

const server = createApiServer();
let port: number;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Blocks this process (server and client alike) for `ms`, as a stalled host would be. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: nothing else runs
  }
}

/** Reads from the socket until `count` complete answers (headers and Content-Length bodies) arrived, or it closed. */
function answers(socket: Socket, count: number): Promise<{ statuses: number[]; error?: string }> {
  return new Promise((resolve) => {
    let data = '';
    const statuses = () => [...data.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));
    const onData = (chunk: Buffer) => {
      data += chunk.toString('latin1');
      if (statuses().length >= count) done();
    };
    const done = (error?: Error) => {
      socket.off('data', onData);
      resolve({ statuses: statuses(), ...(error ? { error: (error as NodeJS.ErrnoException).code ?? error.message } : {}) });
    };
    socket.on('data', onData);
    socket.once('error', done);
    socket.once('close', () => done());
  });
}

it('answers a request sent on a reused connection while the host stalled past 5 s', async () => {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  const request = 'GET /health-of-nothing HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n';
  const firstAnswered = answers(socket, 1);
  socket.write(request);
  const first = await firstAnswered;
  expect(first.statuses).toHaveLength(1);
  // The next request leaves on the idle connection 200 ms later (a client polling); the host then
  // stalls for 7 s before it reads it.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const secondAnswered = answers(socket, 1);
  // Written and stalled in one callback of the loop's check phase: the next phase to run is the
  // timers', as after any long callback, and only then would the request be read.
  setImmediate(() => {
    socket.write(request);
    stall(7_000);
  });
  expect(await secondAnswered).toEqual({ statuses: first.statuses });
  socket.destroy();
}, 20_000);
