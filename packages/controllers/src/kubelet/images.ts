/**
 * Image references as containerd reports them in container statuses: a
 * reference normalized the way the docker CLI does (`nginx` is
 * `docker.io/library/nginx:latest`), an imageID that pins it by digest
 * (`docker.io/library/nginx@sha256:...`), and containerd container IDs.
 * Digests and IDs are made up, but deterministic: the same image always has
 * the same imageID, so a changed image shows as a changed imageID (what
 * in-place update controllers such as Kruise's watch for).
 */
import { createHash } from 'node:crypto';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The parts of an image reference: repository (with registry), and a tag or a digest. */
export function parseImage(image: string): { repository: string; tag?: string; digest?: string } {
  let rest = image.trim();
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const slash = rest.indexOf('/');
  const first = slash < 0 ? '' : rest.slice(0, slash);
  const hasRegistry = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  let repository = hasRegistry ? rest : `docker.io/${rest}`;
  if (!hasRegistry && slash < 0) repository = `docker.io/library/${rest}`;
  if (!tag && !digest) tag = 'latest';
  return { repository, tag, digest };
}

/** The normalized reference containerd reports as the container's image: `docker.io/library/nginx:1.27`. */
export function normalizedImage(image: string): string {
  const { repository, tag, digest } = parseImage(image);
  return digest ? `${repository}@${digest}` : `${repository}:${tag}`;
}

/** Image IDs by reference: every pod of a workload runs the same few images, and each start hashed its image again. */
const imageIds = new Map<string, string>();
const maxRemembered = 1000;

/** The image's ID: its digest when the reference has one, else a digest made up from the reference. */
export function imageId(image: string): string {
  let id = imageIds.get(image);
  if (id !== undefined) return id;
  const { repository, tag, digest } = parseImage(image);
  id = `${repository}@${digest ?? `sha256:${sha256(`${repository}:${tag}`)}`}`;
  if (imageIds.size >= maxRemembered) imageIds.clear();
  imageIds.set(image, id);
  return id;
}

/** A container's ID, one per pod, container and restart: `containerd://<64 hex>`. */
export function containerId(podUid: string, container: string, restartCount: number): string {
  return `containerd://${sha256(`${podUid}/${container}/${restartCount}`)}`;
}
