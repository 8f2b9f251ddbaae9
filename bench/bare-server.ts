/**
 * The baseline for throughput figures: a bare Node HTTPS server, with the same
 * certificate as the API server, that does the least a server holding JSON
 * objects can do for the same requests:
 * - POST: parses the body, stamps metadata (uid, resourceVersion,
 *   creationTimestamp), answers 201 with the object as JSON, and sends it as an
 *   ADDED event to every open watch;
 * - GET with `watch=1|true`: a chunked stream of newline-terminated events;
 * - any other GET: the bytes of the JSON file given (the API server keeps each
 *   object's JSON encoding too, so sending ready bytes is the fair ceiling).
 *
 * With `OPERANT_BARE_KUBE_FIELDS=1` (the watch fan-out's baseline) a POST also
 * does what every Kubernetes API server does for it and the bytes it sends
 * are as long as the API server's: it stamps metadata.namespace (from the
 * path) and a managedFields entry (the fields the object sets, kube's shape),
 * and keeps the object. Without it, an event line is less than half as long
 * as the API server's (220 bytes against 500 for the bench's ConfigMap), and
 * each watcher's client decrypts and scans only that: the comparison would
 * measure the bytes, not the fan-out.
 *
 * Usage: node --import tsx bench/bare-server.ts CERT KEY [LIST.json]
 */
import { createServer } from 'node:https';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const [certFile, keyFile, listFile] = process.argv.slice(2);
const listBytes = listFile ? readFileSync(listFile) : Buffer.from('{"kind":"List","apiVersion":"v1","metadata":{},"items":[]}');
const watchers = new Set<ServerResponse>();
let revision = 1;
const kubeFields = process.env.OPERANT_BARE_KUBE_FIELDS === '1';
const held = new Map<string, unknown>();

/** The managedFields fieldsV1 of an Update that set every field of `value` (maps down to their keys, as kube records a create). */
function fieldSet(value: Record<string, unknown>): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = value[key];
    set[`f:${key}`] = v !== null && typeof v === 'object' && !Array.isArray(v) ? { '.': {}, ...fieldSet(v as Record<string, unknown>) } : {};
  }
  return set;
}

/** Stamps namespace and managedFields as a Kubernetes API server does on create, and keeps the object. */
function stampKubeFields(obj: { metadata: Record<string, unknown> } & Record<string, unknown>, path: string, time: string): void {
  const namespace = /^\/api\/v1\/namespaces\/([^/]+)\//.exec(path)?.[1];
  if (namespace) obj.metadata.namespace = namespace;
  const { apiVersion, kind, metadata, ...rest } = obj;
  const { name, namespace: _ns, ...metaFields } = metadata;
  const fieldsV1 = fieldSet({ ...rest, metadata: metaFields });
  const meta = fieldsV1['f:metadata'] as Record<string, unknown>;
  delete meta['.'];
  obj.metadata.managedFields = [{ manager: 'unknown', operation: 'Update', apiVersion, time, fieldsType: 'FieldsV1', fieldsV1 }];
  held.set(`${namespace ?? ''}/${String(name)}`, obj);
  void kind;
}

const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  if (req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const obj = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { metadata: Record<string, unknown> } & Record<string, unknown>;
      const time = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      if (kubeFields) stampKubeFields(obj, req.url ?? '/', time);
      obj.metadata.uid = randomUUID();
      obj.metadata.resourceVersion = String(++revision);
      obj.metadata.creationTimestamp = time;
      if (watchers.size) {
        const line = `${JSON.stringify({ type: 'ADDED', object: obj })}\n`;
        for (const w of watchers) w.write(line);
      }
      const text = JSON.stringify(obj);
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    });
    return;
  }
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  if (query.get('watch') === '1' || query.get('watch') === 'true') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    watchers.add(res);
    res.on('close', () => watchers.delete(res));
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': listBytes.length });
  res.end(listBytes);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`ready https://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  for (const w of watchers) w.destroy();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
