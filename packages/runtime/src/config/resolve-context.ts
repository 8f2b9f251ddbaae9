/**
 * From a (merged) kubeconfig and a context name to a {@link ClientConfig}: the
 * context's cluster, user and namespace, checked as kubectl checks them, with
 * certificate files read and the user's authentication method chosen.
 */
import type { ClientConfig, Impersonation, TlsConfig } from './client-config.js';
import { staticCredentials, type ClientCertificate, type CredentialProvider } from './credentials.js';
import { KubeConfigError } from './errors.js';
import { ExecCredentialProvider, type ExecClusterInfo } from './exec-credential.js';
import type { KubeConfigCluster, KubeConfigDocument, KubeConfigUser } from './kubeconfig-document.js';
import { decodePemData, readPemFile } from './pem.js';
import { TokenFileProvider } from './token-file.js';

/** How a merged configuration is described in errors: its file, its files, or `kubeconfig text`. */
function describeSources(files: readonly string[]): string {
  if (files.length === 0) return 'kubeconfig text';
  return files.length === 1 ? `kubeconfig ${files[0]}` : `kubeconfig ${files.join(', ')}`;
}

/** An entry's own file (for errors about it), or the merged description. */
function entrySource(file: string | undefined, fallback: string): string {
  return file === undefined ? fallback : `kubeconfig ${file}`;
}

async function pemField(source: string, where: string, data: string | undefined, file: string | undefined, name: string): Promise<string | undefined> {
  if (data !== undefined && file !== undefined) {
    throw new KubeConfigError(source, `${where}: ${name}-data and ${name} are both set; keep one`);
  }
  if (data !== undefined) return decodePemData(source, `${where}.${name}-data`, data);
  if (file !== undefined) return readPemFile(source, `${where}.${name}`, file);
  return undefined;
}

function checkServer(source: string, where: string, server: string | undefined): string {
  if (!server) throw new KubeConfigError(source, `${where} has no server`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new KubeConfigError(source, `${where}.server ${JSON.stringify(server)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new KubeConfigError(source, `${where}.server ${JSON.stringify(server)} must be an https:// (or http://) URL`);
  }
  return server.replace(/\/+$/, '');
}

async function clusterTls(source: string, where: string, cluster: KubeConfigCluster): Promise<TlsConfig> {
  const insecure = cluster['insecure-skip-tls-verify'] === true;
  const ca = await pemField(source, where, cluster['certificate-authority-data'], cluster['certificate-authority'], 'certificate-authority');
  if (insecure && ca !== undefined) {
    throw new KubeConfigError(source, `${where}: insecure-skip-tls-verify cannot be combined with certificate-authority(-data), as in kubectl`);
  }
  const tls: TlsConfig = { insecureSkipTlsVerify: insecure };
  if (ca !== undefined) tls.ca = ca;
  if (cluster['tls-server-name']) tls.serverName = cluster['tls-server-name'];
  return tls;
}

async function userCertificate(source: string, where: string, user: KubeConfigUser): Promise<ClientCertificate | undefined> {
  const cert = await pemField(source, where, user['client-certificate-data'], user['client-certificate'], 'client-certificate');
  const key = await pemField(source, where, user['client-key-data'], user['client-key'], 'client-key');
  if ((cert === undefined) !== (key === undefined)) {
    throw new KubeConfigError(source, `${where}: client-certificate(-data) and client-key(-data) must be set together`);
  }
  return cert !== undefined && key !== undefined ? { cert, key } : undefined;
}

function userCredentials(source: string, userName: string, user: KubeConfigUser, cluster: ExecClusterInfo): CredentialProvider {
  const where = `user ${JSON.stringify(userName)}`;
  const methods: string[] = [];
  if (user.token !== undefined || user.tokenFile !== undefined) methods.push('token');
  if (user.username !== undefined || user.password !== undefined) methods.push('basic auth (username/password)');
  if (user.exec !== undefined) methods.push('exec');
  if (user['auth-provider'] !== undefined) methods.push('auth-provider');
  if (methods.length > 1) {
    throw new KubeConfigError(source, `${where} has more than one authentication method (${methods.join(', ')}); only one is allowed`);
  }
  if (user['auth-provider'] !== undefined) {
    const name = user['auth-provider'].name;
    throw new KubeConfigError(
      source,
      `${where}.auth-provider ${JSON.stringify(name)} is not supported (kubectl removed auth providers too); use an exec credential plugin, e.g. gke-gcloud-auth-plugin or kubelogin`,
    );
  }
  // client-go: a readable tokenFile takes precedence over the inline token.
  if (user.tokenFile !== undefined) return new TokenFileProvider(user.tokenFile, source);
  if (user.token !== undefined) return staticCredentials({ token: user.token }, 'token');
  if (user.username !== undefined || user.password !== undefined) {
    return staticCredentials({ basic: { username: user.username ?? '', password: user.password ?? '' } }, `basic auth as ${user.username ?? ''}`);
  }
  if (user.exec !== undefined) return new ExecCredentialProvider(user.exec, { source, user: userName, cluster });
  return staticCredentials({}, 'none');
}

function impersonation(user: KubeConfigUser): Impersonation | undefined {
  const out: Impersonation = {};
  if (user.as) out.user = user.as;
  if (user['as-uid']) out.uid = user['as-uid'];
  if (user['as-groups']) out.groups = user['as-groups'];
  if (user['as-user-extra']) out.extra = user['as-user-extra'];
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Builds the {@link ClientConfig} of one context of a kubeconfig.
 *
 * @param files the files merged into `doc`, in order (empty for inline text).
 * @param contextName the context to use; `doc.currentContext` when omitted.
 * @example
 * ```ts
 * import { mergeKubeConfigs, resolveContext, type KubeConfigDocument } from '@operant/runtime';
 *
 * declare const docs: KubeConfigDocument[]; // parsed from `files`, in KUBECONFIG order
 * const files = ['/home/me/.kube/config', '/home/me/.kube/kind'];
 * const config = await resolveContext(mergeKubeConfigs(docs), files, 'kind-dev');
 * ```
 */
export async function resolveContext(doc: KubeConfigDocument, files: readonly string[], contextName?: string): Promise<ClientConfig> {
  const all = describeSources(files);
  const name = contextName || doc.currentContext;
  if (!name) {
    const hint = doc.contexts.size > 0 ? `; choose one of: ${[...doc.contexts.keys()].join(', ')}` : '';
    throw new KubeConfigError(all, `no current-context is set and no context was chosen${hint}`);
  }
  const context = doc.contexts.get(name);
  if (!context) {
    const known = doc.contexts.size > 0 ? ` (contexts: ${[...doc.contexts.keys()].join(', ')})` : ' (it defines no contexts)';
    throw new KubeConfigError(all, `context ${JSON.stringify(name)} not found${known}`);
  }
  const ctxSource = entrySource(context.file, all);
  const { cluster: clusterName, user: userName } = context.value;
  if (!clusterName) throw new KubeConfigError(ctxSource, `context ${JSON.stringify(name)} names no cluster`);
  const cluster = doc.clusters.get(clusterName);
  if (!cluster) throw new KubeConfigError(ctxSource, `context ${JSON.stringify(name)} refers to cluster ${JSON.stringify(clusterName)}, which is not defined`);
  const user = userName ? doc.users.get(userName) : { value: {}, file: context.file };
  if (!user) throw new KubeConfigError(ctxSource, `context ${JSON.stringify(name)} refers to user ${JSON.stringify(userName)}, which is not defined`);

  const clusterSource = entrySource(cluster.file, all);
  const clusterWhere = `cluster ${JSON.stringify(clusterName)}`;
  const server = checkServer(clusterSource, clusterWhere, cluster.value.server);
  const tls = await clusterTls(clusterSource, clusterWhere, cluster.value);
  const warnings: string[] = [];
  if (cluster.value['proxy-url']) {
    warnings.push(
      `${clusterSource}: ${clusterWhere} sets proxy-url ${cluster.value['proxy-url']}, which @operant/runtime does not support; connecting to ${server} directly`,
    );
  }

  const userSource = entrySource(user.file, all);
  const userWhere = `user ${JSON.stringify(userName)}`;
  const certificate = await userCertificate(userSource, userWhere, user.value);
  if (certificate) tls.clientCertificate = certificate;
  const execCluster: ExecClusterInfo = { server };
  if (tls.serverName) execCluster['tls-server-name'] = tls.serverName;
  if (tls.insecureSkipTlsVerify) execCluster['insecure-skip-tls-verify'] = true;
  if (tls.ca) execCluster['certificate-authority-data'] = Buffer.from(tls.ca, 'utf8').toString('base64');
  const credentials = userCredentials(userSource, userName, user.value, execCluster);

  const config: ClientConfig = {
    server,
    namespace: context.value.namespace || 'default',
    tls,
    credentials,
    source: { kind: 'kubeconfig', files: [...files], context: name, cluster: clusterName, user: userName },
    warnings,
  };
  const as = impersonation(user.value);
  if (as) config.impersonate = as;
  return config;
}
