/**
 * Impersonation is read from every spelling of its headers, on every way into
 * the server. The server skips impersonation for a request whose raw header
 * lines hold no `Impersonate-*` name (cluster8's trim); were any spelling or
 * way in missed, a requestor without the right to impersonate would act as
 * itself instead of being refused. Each request here is sent as raw bytes (the
 * header names exactly as written, repeated ones kept) by a ServiceAccount
 * that may impersonate `jane` only: over HTTPS, over the private socket, and
 * handed over in the process (`serveInProcess`) by another server.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { startApiServer, type RunningApiServer } from '../src/index.js';

interface Answer {
  status: number;
  body: Record<string, unknown> | undefined;
}

/** Sends `head` (request line and header lines, CRLF-separated, no blank line) and `body`; reads the whole answer. */
function rawRequest(open: () => Socket, head: string, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = open();
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const headLines = text.slice(0, split).split('\r\n');
      let payload = text.slice(split + 4);
      if (headLines.some((l) => /^transfer-encoding:\s*chunked/i.test(l))) payload = dechunk(payload);
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = JSON.parse(payload) as Record<string, unknown>;
      } catch {
        parsed = undefined;
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headLines[0] ?? '')?.[1] ?? 0), body: parsed });
    });
    socket.write(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}

function dechunk(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const eol = text.indexOf('\r\n', at);
    const size = parseInt(text.slice(at, eol), 16);
    if (!size) return out;
    out += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

const reviewPath = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const reviewBody = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
const requestor = 'system:serviceaccount:default:impersonator';
const forbiddenRoot = `users "root" is forbidden: User "${requestor}" cannot impersonate resource "users" in API group "" at the cluster scope`;

describe('impersonation headers in any spelling, on every way into the server', () => {
  let server: RunningApiServer;
  let front: Server;
  let token: string;
  const ways: Record<string, () => Socket> = {};

  before(async () => {
    server = await startApiServer({ port: 0, privateSocket: true });
    // The admin's requests go on the private socket: plain HTTP, so raw bytes need no TLS.
    const admin = async (method: string, path: string, body: unknown): Promise<Record<string, unknown>> => {
      const answer = await rawRequest(
        () => netConnect(server.socketPath!),
        `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${server.adminToken}\r\nContent-Type: application/json`,
        JSON.stringify(body),
      );
      assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body!;
    };
    await admin('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'impersonator' } });
    const issued = await admin('POST', '/api/v1/namespaces/default/serviceaccounts/impersonator/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    token = (issued.status as { token: string }).token;
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'impersonate-jane' },
      rules: [{ apiGroups: [''], resources: ['users'], resourceNames: ['jane'], verbs: ['impersonate'] }],
    });
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'impersonator-jane' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-jane' },
      subjects: [{ kind: 'ServiceAccount', namespace: 'default', name: 'impersonator' }],
    });
    // Another plain HTTP server of the process that hands every request over.
    front = createServer((req, res) => {
      if (!server.serveInProcess!(req, res)) res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const url = new URL(server.url);
    ways.https = () => tlsConnect({ host: url.hostname, port: Number(url.port), ca: server.caPem, servername: 'localhost' });
    ways['private socket'] = () => netConnect(server.socketPath!);
    ways['handed over in the process'] = () => netConnect((front.address() as AddressInfo).port, '127.0.0.1');
  });
  after(async () => {
    if (front) {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    }
    await server?.stop();
  });

  /** A SelfSubjectReview by the ServiceAccount with `lines` (raw header lines) among its headers. */
  const review = (way: string, lines: string[]): Promise<Answer> =>
    rawRequest(ways[way]!, [`POST ${reviewPath} HTTP/1.1`, 'Host: localhost', `Authorization: Bearer ${token}`, 'Content-Type: application/json', ...lines].join('\r\n'), reviewBody);
  const userOf = (a: Answer): unknown => (a.body?.status as { userInfo?: { username?: string } } | undefined)?.userInfo?.username;

  for (const way of ['https', 'private socket', 'handed over in the process']) {
    it(`${way}: without impersonation headers the requestor is itself; with one in any case, it is read (403 for a user it may not be)`, async () => {
      const plain = await review(way, []);
      assert.equal(plain.status, 201, JSON.stringify(plain.body));
      assert.equal(userOf(plain), requestor);
      for (const name of ['Impersonate-User', 'impersonate-user', 'IMPERSONATE-USER', 'iMPERSONATE-uSER']) {
        const refused = await review(way, [`${name}: root`]);
        assert.equal(refused.status, 403, `${name}: ${JSON.stringify(refused.body)}`);
        assert.equal(refused.body?.message, forbiddenRoot, name);
      }
      // Among many other headers, and after them.
      const late = await review(way, [...Array.from({ length: 60 }, (_, i) => `X-Filler-${i}: ${i}`), 'impersonate-USER: root']);
      assert.equal(late.status, 403, JSON.stringify(late.body));
    });

    it(`${way}: groups, a uid or extras in any case, without a user, are kube's 400; never the requestor acting as itself`, async () => {
      const cases: Array<[string, string]> = [
        ['IMPERSONATE-GROUP: system:masters', 'requested [{Group  system:masters    }] without impersonating a user'],
        ['impersonate-uid: 1234', 'requested [{UID  1234  authentication.k8s.io/v1  }] without impersonating a user'],
        ['Impersonate-Extra-Scopes: view', 'requested [{UserExtra  view  authentication.k8s.io/v1  scopes}] without impersonating a user'],
        ['iMpErSoNaTe-ExTrA-sCoPeS: view', 'requested [{UserExtra  view  authentication.k8s.io/v1  scopes}] without impersonating a user'],
      ];
      for (const [line, message] of cases) {
        const answer = await review(way, [line]);
        assert.equal(answer.status, 400, `${line}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body?.message, message, line);
      }
    });

    it(`${way}: a repeated Impersonate-User header, spelled two ways, is read as kube reads it (the first value)`, async () => {
      const first = await review(way, ['Impersonate-User: jane', 'impersonate-user: root']);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal(userOf(first), 'jane');
      const other = await review(way, ['IMPERSONATE-USER: root', 'Impersonate-User: jane']);
      assert.equal(other.status, 403, JSON.stringify(other.body));
    });

    it(`${way}: an impersonation header continued on a folded line is refused by the parser, not served as the requestor`, async () => {
      const folded = await review(way, ['Impersonate-User: ro', ' ot']);
      assert.equal(folded.status, 400, JSON.stringify(folded.body));
      assert.notEqual(userOf(folded), requestor);
    });
  }
});
