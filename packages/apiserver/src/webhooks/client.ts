/**
 * Calling webhooks as kube-apiserver does: HTTPS only, the server certificate
 * verified against the configuration's caBundle, `url` or a Service resolved
 * through its Endpoints (so a webhook server on this machine is reachable by
 * registering Endpoints for its Service), with a timeout.
 */
import { request as httpsRequest } from 'node:https';
import type { MvccStore } from '../storage/mvcc-store.js';

export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  /** Base64 of the PEM CA bundle that signed the webhook's serving certificate. */
  caBundle?: string;
}

/** Where to connect, and the name the certificate must carry. */
export interface WebhookTarget {
  /** The URL as kube prints it in errors (`https://svc.ns.svc:443/path`). */
  displayUrl: string;
  host: string;
  port: number;
  path: string;
  serverName: string;
}

/** A webhook call that failed: kube words these as `failed calling webhook ...: <reason>`. */
export class WebhookCallError extends Error {
  constructor(
    message: string,
    /** True when the webhook did not answer in time. */
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'WebhookCallError';
  }
}

type Json = Record<string, unknown>;

/** Resolves a clientConfig to a connection target, reading Services and Endpoints from the store. */
export function resolveWebhookTarget(config: WebhookClientConfig, store: MvccStore): WebhookTarget {
  if (config.url) {
    const u = new URL(config.url);
    const port = u.port ? Number(u.port) : 443;
    const host = u.hostname.replace(/^\[|\]$/g, '');
    return { displayUrl: config.url, host, port, path: `${u.pathname}${u.search}`, serverName: host };
  }
  const svc = config.service;
  if (!svc) throw new WebhookCallError('there is no service or URL to call');
  const port = svc.port ?? 443;
  const path = svc.path ?? '/';
  const serverName = `${svc.name}.${svc.namespace}.svc`;
  const displayUrl = `https://${serverName}:${port}${path}`;
  const service = store.get(`/core/services/${svc.namespace}/${svc.name}`)?.value;
  if (!service) throw new WebhookCallError(`Post "${displayUrl}": service "${svc.name}" not found`);
  const spec = (service.spec ?? {}) as { ports?: Array<{ name?: string; port: number; targetPort?: number | string }> };
  const servicePort = (spec.ports ?? []).find((p) => p.port === port);
  if (!servicePort) throw new WebhookCallError(`Post "${displayUrl}": service ${svc.namespace}/${svc.name}:${port} is not a port of the service`);
  const endpoints = store.get(`/core/endpoints/${svc.namespace}/${svc.name}`)?.value as
    | { subsets?: Array<{ addresses?: Array<{ ip: string }>; ports?: Array<{ name?: string; port: number }> }> }
    | undefined;
  for (const subset of endpoints?.subsets ?? []) {
    const address = subset.addresses?.[0]?.ip;
    const epPort = (subset.ports ?? []).find((p) => (servicePort.name ? p.name === servicePort.name : true));
    if (address && epPort) return { displayUrl, host: address, port: epPort.port, path, serverName };
  }
  throw new WebhookCallError(`Post "${displayUrl}": no endpoints available for service "${svc.name}"`);
}

/** POSTs JSON to a webhook and returns its parsed JSON answer. */
export function postWebhook(target: WebhookTarget, caBundle: string | undefined, body: unknown, timeoutMs: number): Promise<Json> {
  const payload = Buffer.from(JSON.stringify(body));
  const ca = caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: target.host,
        port: target.port,
        path: target.path,
        method: 'POST',
        servername: /^[\d.]+$|:/.test(target.serverName) ? undefined : target.serverName,
        ca,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': payload.length },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > 16 * 1024 * 1024) req.destroy(new Error('response too large'));
          else chunks.push(c);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
            reject(new WebhookCallError(`Post "${target.displayUrl}": the server responded with status ${res.statusCode}: ${text.slice(0, 200)}`));
            return;
          }
          try {
            resolve(JSON.parse(text) as Json);
          } catch {
            reject(new WebhookCallError(`Post "${target.displayUrl}": the response is not JSON`));
          }
        });
        res.on('error', (e) => reject(new WebhookCallError(`Post "${target.displayUrl}": ${e.message}`)));
      },
    );
    req.on('timeout', () => {
      req.destroy();
      reject(new WebhookCallError(`Post "${target.displayUrl}": context deadline exceeded`, true));
    });
    req.on('error', (e) => reject(new WebhookCallError(`Post "${target.displayUrl}": ${tlsWords(e)}`)));
    req.end(payload);
  });
}

/** Go's wording for the TLS failures users meet most. */
function tlsWords(e: Error & { code?: string }): string {
  if (e.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || e.code === 'SELF_SIGNED_CERT_IN_CHAIN' || e.code === 'DEPTH_ZERO_SELF_SIGNED_CERT') {
    return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  }
  if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `tls: failed to verify certificate: x509: ${e.message}`;
  if (e.code === 'ECONNREFUSED') return `dial tcp: connect: connection refused`;
  return e.message;
}
