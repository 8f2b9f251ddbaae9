/**
 * The API server's version (`GET /version`, client-go's
 * Discovery().ServerVersion()), which a kubelet reports as its own in
 * nodeInfo, so `kubectl get nodes` shows the server's version. The runtime's
 * client has no call for it; this is a plain HTTPS GET with the
 * configuration's trust and credentials (plain HTTP on the configuration's
 * Unix domain socket when it names one).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ClientConfig } from '@operant/runtime';

export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
}

export async function serverVersion(config: ClientConfig, signal?: AbortSignal): Promise<ServerVersion> {
  const url = new URL(`${config.server}/version`);
  const credentials = await config.credentials.credentials();
  const cert = credentials.clientCertificate ?? config.tls.clientCertificate;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (credentials.token) headers.Authorization = `Bearer ${credentials.token}`;
  else if (credentials.basic) headers.Authorization = `Basic ${Buffer.from(`${credentials.basic.username}:${credentials.basic.password}`).toString('base64')}`;
  const socketPath = typeof config.socketPath === 'function' ? config.socketPath() : config.socketPath;
  const secure = socketPath === undefined && url.protocol === 'https:';
  const body = await new Promise<string>((resolve, reject) => {
    const options = {
      headers,
      socketPath,
      signal,
      ca: config.tls.ca,
      rejectUnauthorized: !config.tls.insecureSkipTlsVerify,
      servername: config.tls.serverName,
      cert: cert?.cert,
      key: cert?.key,
    };
    const req = secure ? httpsRequest(url, options, answer) : httpRequest({ ...options, hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port || undefined, path: url.pathname }, answer);
    function answer(res: IncomingMessage): void {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`GET /version: ${res.statusCode} ${text}`))));
      res.on('error', reject);
    }
    req.on('error', reject);
    req.end();
  });
  return JSON.parse(body) as ServerVersion;
}
