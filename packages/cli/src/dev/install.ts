/**
 * What `operant dev` installs before it runs the manager, and takes away
 * after: the project's CRDs (created or replaced, then awaited until
 * Established), and its webhook configurations pointed at the manager on this
 * machine (https://127.0.0.1:<port><path>, with the local CA as caBundle), so
 * the API server calls the webhooks being developed. Left behind, they would
 * make every write of their kinds fail once the manager is gone.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  Client,
  CustomResourceDefinition,
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
  isNotFound,
  localWebhookClientConfig,
  type Kind,
  type KubeObject,
} from '@operant/runtime';

type AnyKind = Kind;

function documents(file: string): KubeObject[] {
  if (!existsSync(file)) return [];
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null && typeof o === 'object' && typeof o.kind === 'string');
}

/** Creates the object, or replaces the one there. */
async function createOrReplace(client: Client, kind: AnyKind, obj: KubeObject): Promise<void> {
  try {
    const current = await client.get(kind, obj.metadata.name!);
    await client.update(kind, { ...obj, metadata: { ...obj.metadata, resourceVersion: current.metadata.resourceVersion } });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await client.create(kind, obj);
  }
}

async function waitEstablished(client: Client, name: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crd = await client.get(CustomResourceDefinition, name);
    const conditions = (crd.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`CRD ${name} is not Established after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Installs every CRD in config/crd/bases; returns their names. */
export async function installCrds(client: Client, dir: string): Promise<string[]> {
  const bases = join(dir, 'config', 'crd', 'bases');
  const files = existsSync(bases) ? readdirSync(bases).filter((f) => f.endsWith('.yaml')).sort() : [];
  const names: string[] = [];
  for (const file of files) {
    for (const crd of documents(join(bases, file))) {
      await createOrReplace(client, CustomResourceDefinition, crd);
      names.push(crd.metadata.name!);
    }
  }
  for (const name of names) await waitEstablished(client, name);
  return names;
}

export interface LocalWebhooks {
  /** The configurations installed, to remove at the end. */
  installed: Array<{ kind: AnyKind; name: string }>;
}

/** Installs config/webhook/manifests.yaml, pointed at this machine's webhook port. */
export async function installLocalWebhooks(client: Client, dir: string, port: number, caPem: string): Promise<LocalWebhooks> {
  const installed: LocalWebhooks['installed'] = [];
  for (const config of documents(join(dir, 'config', 'webhook', 'manifests.yaml'))) {
    const kind: AnyKind | undefined =
      config.kind === 'MutatingWebhookConfiguration' ? MutatingWebhookConfiguration : config.kind === 'ValidatingWebhookConfiguration' ? ValidatingWebhookConfiguration : undefined;
    if (!kind) continue;
    const webhooks = (config.webhooks as Array<{ clientConfig?: { service?: { path?: string }; url?: string } }> | undefined) ?? [];
    for (const w of webhooks) {
      const path = w.clientConfig?.service?.path ?? (w.clientConfig?.url ? new URL(w.clientConfig.url).pathname : '/');
      w.clientConfig = localWebhookClientConfig({ port, path, caPem });
    }
    await createOrReplace(client, kind, config);
    installed.push({ kind, name: config.metadata.name! });
  }
  return { installed };
}

export async function removeLocalWebhooks(client: Client, hooks: LocalWebhooks): Promise<void> {
  for (const { kind, name } of hooks.installed) {
    await client.delete(kind, name).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
}
