/**
 * Whether a container runs the image its spec names. The kubelet reports
 * images fully qualified (`docker.io/library/nginx:1.25` for `nginx:1.25`),
 * so both sides are normalized as Docker does before they are compared
 * (Kruise's util.IsContainerImageEqual).
 */

/** `nginx:1.25` and `docker.io/library/nginx:1.25` are the same image; an untagged one is `:latest`. */
export function sameImage(spec: string, status: string): boolean {
  return spec === status || normalized(spec) === normalized(status);
}

/** A cluster runs few distinct images: each is normalized once (the memo is emptied when it grows large). */
const memo = new Map<string, string>();

function normalized(image: string): string {
  let out = memo.get(image);
  if (out === undefined) {
    if (memo.size >= 10_000) memo.clear();
    memo.set(image, (out = normalize(image)));
  }
  return out;
}

function normalize(image: string): string {
  let rest = image;
  let digest = '';
  const at = rest.indexOf('@');
  if (at >= 0) [rest, digest] = [rest.slice(0, at), rest.slice(at)];
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  let tag = '';
  if (colon > slash) [rest, tag] = [rest.slice(0, colon), rest.slice(colon)];
  const first = rest.split('/')[0]!;
  const hasDomain = rest.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!hasDomain) rest = `docker.io/${rest.includes('/') ? '' : 'library/'}${rest}`;
  if (!tag && !digest) tag = ':latest';
  return `${rest}${tag}${digest}`;
}
