/**
 * Response negotiation from the Accept header: plain JSON, a meta.k8s.io Table
 * (what kubectl get asks for), or PartialObjectMetadata (metadata-only clients).
 * Protobuf is not offered; clients that also accept JSON get JSON.
 */
import { notAcceptable } from '@operant/apimachinery';

export type ResponseForm = 'object' | 'table' | 'metadata';

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part) => {
      const [type, ...rest] = part.split(';').map((s) => s.trim());
      const params: Record<string, string> = {};
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
      }
      return { type: type.toLowerCase(), params };
    })
    .filter((r) => r.type !== '');
}

const jsonTypes = new Set(['application/json', 'application/*', '*/*', 'application/yaml']);

/** Picks the first acceptable form in the client's order. */
export function negotiate(accept: string | undefined): ResponseForm {
  if (!accept) return 'object';
  for (const r of parseAccept(accept)) {
    if (!jsonTypes.has(r.type)) continue;
    const as = r.params.as;
    if (!as) return 'object';
    if (r.params.g !== 'meta.k8s.io' || (r.params.v !== 'v1' && r.params.v !== 'v1beta1')) continue;
    if (as === 'Table') return 'table';
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return 'metadata';
  }
  throw notAcceptable(['application/json', 'application/yaml']);
}
