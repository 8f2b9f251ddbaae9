/**
 * Reading manifests as envtest does: files, or directories of files
 * (`.yaml`, `.yml`, `.json`; not recursing, so that `config/crd/bases` is
 * read and the kustomize patches beside it are not), each file possibly
 * holding several YAML documents; objects given directly are taken as they are.
 */
import { access, readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join } from 'node:path';
import type { KubeObject } from '@operant/runtime';
import { parseAllDocuments } from '../lazy-packages.js';

/**
 * Files, directories or objects.
 *
 * @example
 * ```ts
 * import type { ManifestSource } from '@operant/testing/install';
 *
 * const crds: ManifestSource = ['config/crd/bases', 'test/testdata/extra-crd.yaml'];
 * ```
 */
export type ManifestSource = string | KubeObject | ReadonlyArray<string | KubeObject>;

const manifestExtensions = new Set(['.yaml', '.yml', '.json']);

/**
 * Every object in `source`, in order (directories in file-name order); empty documents skipped.
 *
 * @example
 * ```ts
 * import { readManifests } from '@operant/testing/install';
 *
 * const [role] = await readManifests('config/rbac/role.yaml');
 * ```
 */
export async function readManifests(source: ManifestSource | undefined): Promise<KubeObject[]> {
  if (source === undefined) return [];
  const items = typeof source === 'string' || !Array.isArray(source) ? [source as string | KubeObject] : (source as ReadonlyArray<string | KubeObject>);
  const out: KubeObject[] = [];
  for (const item of items) {
    if (typeof item !== 'string') {
      out.push(item);
      continue;
    }
    const files = (await statNamed(item)).isDirectory()
      ? (await readdir(item)).filter((f) => manifestExtensions.has(extname(f))).sort().map((f) => join(item, f))
      : [item];
    for (const file of files) out.push(...parse(file, await readFile(file, 'utf8')));
  }
  return out;
}

/**
 * The manifests of a kubebuilder-shaped project in `dir`, as `operant generate`
 * writes them: the CRDs of config/crd/bases and the webhook configurations of
 * config/webhook/manifests.yaml (none when a path is missing).
 *
 * @example
 * ```ts
 * import { projectManifests } from '@operant/testing/install';
 *
 * const { crds, webhooks } = await projectManifests('.');
 * ```
 */
export async function projectManifests(dir: string): Promise<{ crds: KubeObject[]; webhooks: KubeObject[] }> {
  const existing = async (path: string): Promise<string[]> => (await access(path).then(() => true, () => false)) ? [path] : [];
  const [crds, webhooks] = await Promise.all([
    existing(join(dir, 'config', 'crd', 'bases')).then(readManifests),
    existing(join(dir, 'config', 'webhook', 'manifests.yaml')).then(readManifests),
  ]);
  return { crds, webhooks };
}

/**
 * Parsed files by their text: an environment per test file reads the same
 * CRDs again and again, and parsing YAML costs far more than reading it (a
 * few milliseconds of a warm start for one small CRD). Keyed by the text, so
 * a changed file is parsed again; each caller gets its own copy to change.
 */
const parsed = new Map<string, KubeObject[]>();
const parsedKept = 64;

function parse(file: string, text: string): KubeObject[] {
  let objects = parsed.get(text);
  if (!objects) {
    objects = parseText(file, text);
    if (parsed.size >= parsedKept) parsed.delete(parsed.keys().next().value!);
    parsed.set(text, objects);
  }
  return structuredClone(objects);
}

/** `stat`, whose ENOENT says where a relative path was looked for: a test runner's working directory is often not the test file's. */
async function statNamed(path: string): ReturnType<typeof stat> {
  try {
    return await stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const where = isAbsolute(path) ? '' : ` (a relative path, read from the working directory ${process.cwd()})`;
    throw Object.assign(new Error(`${path}: no such file or directory${where}`, { cause: err }), { code: 'ENOENT' });
  }
}

/** `yaml` is loaded by the first file parsed (JSON ones too: it reads them as YAML), not with the package (lazy-packages.ts). */
function parseText(file: string, text: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
    const obj = doc.toJS() as unknown;
    if (obj === null || obj === undefined) continue;
    if (typeof obj !== 'object' || typeof (obj as KubeObject).kind !== 'string') {
      // config/crd (kustomize's directory) for config/crd/bases: read as manifests, its kustomization.yaml has no kind.
      const hint = /^kustomization\.ya?ml$/.test(basename(file)) ? ': a kustomization, which is not read here; give the directory of the manifests it lists (e.g. config/crd/bases)' : '';
      throw new Error(`${file}: a document without a kind${hint}`);
    }
    out.push(obj as KubeObject);
  }
  return out;
}
