/**
 * The fault proxy's lean client for a private Unix socket (what TestEnv's
 * proxies send requests no fault acts on with): in front of a raw server that
 * writes each answer byte for byte as a test says, it relays bodies framed by
 * Content-Length (split across reads or in one), chunked (with extensions and
 * trailers, cut anywhere) or by the end of the connection; skips interim 1xx
 * answers; sends no body for HEAD and 204; keeps connections alive and reuses
 * them, but not after `Connection: close`; answers 502 when nothing came and
 * cuts the response when the server stops mid-answer; holds back while the
 * client reads slowly; and a client that leaves closes the upstream connection.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, request, type IncomingMessage, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SocketClient } from '../src/chaos/socket-client.js';

/** What the raw server writes for a path: pieces written one after another, then whether it closes the connection. */
type Script = { pieces: (string | Buffer)[]; close?: boolean };

const big = Buffer.alloc(4 * 1024 * 1024, 'x');
const scripts: Record<string, Script> = {
  '/length': { pieces: ['HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world'] },
  '/length-split': { pieces: ['HTTP/1.1 200 OK\r\nConte', 'nt-Length: 11\r\n', '\r\nhel', 'lo wo', 'rld'] },
  '/chunked': {
    pieces: ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n', '6;ext=1\r\n wo', 'rld\r', '\n0\r\nX-Trailer: t\r\n', '\r\n'],
  },
  '/interim': { pieces: ['HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n', 'HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok'] },
  '/no-content': { pieces: ['HTTP/1.1 204 No Content\r\nX-A: b\r\n\r\n'] },
  '/until-close': { pieces: ['HTTP/1.1 200 OK\r\n\r\nall of ', 'this'], close: true },
  '/close': { pieces: ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'] },
  '/cut': { pieces: ['HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b'], close: true },
  '/silent': { pieces: [], close: true },
  '/big': { pieces: [`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n`, big] },
};

let dir: string;
let back: NetServer;
let front: Server;
let frontPort: number;
let client: SocketClient;
/** Connections the raw server accepted, and the first line of every request it read. */
const accepted: Socket[] = [];
const requestLines: string[] = [];

function serveRaw(socket: Socket): void {
  accepted.push(socket);
  let text = '';
  socket.on('error', () => undefined);
  socket.on('data', (d: Buffer) => {
    text += d.toString('latin1');
    for (let end = text.indexOf('\r\n\r\n'); end >= 0; end = text.indexOf('\r\n\r\n')) {
      const head = text.slice(0, end);
      text = text.slice(end + 4);
      const line = head.split('\r\n')[0]!;
      requestLines.push(line);
      const length = /\r\ncontent-length: (\d+)/i.exec(head);
      if (length) text = text.slice(Number(length[1]));
      const script = scripts[line.split(' ')[1]!]!;
      void (async () => {
        for (const piece of script.pieces) {
          socket.write(piece);
          await new Promise((r) => setTimeout(r, 5)); // most likely each piece in a read of its own (the checks hold either way)
        }
        if (script.close) socket.destroy();
      })();
    }
  });
}

function get(path: string, method = 'GET'): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port: frontPort, host: '127.0.0.1', path, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the lean client of a private socket', () => {
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'socket-client-'));
    const path = join(dir, 'server.sock');
    back = createNetServer(serveRaw);
    await new Promise<void>((resolve) => back.listen(path, resolve));
    client = new SocketClient(() => path);
    front = createHttpServer((req, res) => {
      req.resume();
      client.send(req.method!, req.url!, ['x-forwarded', 'yes'], Buffer.alloc(0), res, (err) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(err.message);
      });
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    frontPort = (front.address() as AddressInfo).port;
  });

  after(async () => {
    client.close();
    front.closeAllConnections();
    await new Promise((r) => front.close(r));
    for (const s of accepted) s.destroy();
    await new Promise((r) => back.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  test('relays a Content-Length body, in one read or cut anywhere, and reuses the connection', async () => {
    const before = accepted.length;
    const one = await get('/length');
    assert.equal(one.status, 200);
    assert.equal(one.body, 'hello world');
    assert.equal(one.headers['content-length'], '11');
    assert.equal(one.headers['content-type'], 'text/plain');
    const split = await get('/length-split');
    assert.equal(split.body, 'hello world');
    assert.equal(accepted.length - before, 1, 'the second request went on the kept-alive connection');
    assert.equal(requestLines.at(-1), 'GET /length-split HTTP/1.1');
  });

  test('decodes a chunked body (extensions, trailers, pieces cut anywhere)', async () => {
    const res = await get('/chunked');
    assert.equal(res.status, 200);
    assert.equal(res.body, 'hello world');
    assert.equal(res.headers['content-length'], undefined);
  });

  test('skips an interim 1xx answer, sends no body for HEAD and 204, reads to the end of a connection without a length', async () => {
    const interim = await get('/interim');
    assert.deepEqual([interim.status, interim.body], [201, 'ok']);
    const head = await get('/length', 'HEAD');
    assert.deepEqual([head.status, head.body, head.headers['content-length']], [200, '', '11']);
    const empty = await get('/no-content');
    assert.deepEqual([empty.status, empty.body, empty.headers['x-a']], [204, '', 'b']);
    const untilClose = await get('/until-close');
    assert.deepEqual([untilClose.status, untilClose.body], [200, 'all of this']);
  });

  test('does not reuse a connection the server closes', async () => {
    await get('/close');
    const before = accepted.length;
    await get('/length');
    assert.equal(accepted.length - before, 1, 'a new connection after Connection: close');
  });

  test('answers 502 when the server says nothing, and cuts an answer the server stops in the middle of', async () => {
    const silent = await get('/silent');
    assert.equal(silent.status, 502);
    assert.match(silent.body, /closed the connection before answering/);
    await assert.rejects(get('/cut'), /aborted|socket hang up|ECONNRESET/);
  });

  test('a slow client gets every byte of a large body; one that leaves closes the upstream connection', async () => {
    const received = await new Promise<number>((resolve, reject) => {
      const req = request({ port: frontPort, host: '127.0.0.1', path: '/big', agent: false }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => {
          n += c.length;
          res.pause();
          setTimeout(() => res.resume(), 1);
        });
        res.on('end', () => resolve(n));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(received, big.length);

    const before = accepted.length;
    const upstreamClosed = new Promise<void>((resolve) => {
      back.once('connection', (s: Socket) => s.once('close', () => resolve()));
    });
    client.close(); // no idle connection to reuse: the next request opens one, and the test watches it
    client = new SocketClient(() => join(dir, 'server.sock'));
    await new Promise<void>((resolve) => {
      const req = request({ port: frontPort, host: '127.0.0.1', path: '/big', agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.on('close', () => resolve());
      req.end();
    });
    await upstreamClosed;
    assert.equal(accepted.length - before, 1);
  });
});
