/**
 * Continue tokens for paginated lists, shaped like kube's: the snapshot
 * revision and the key to resume after, base64-encoded JSON.
 */
import { badRequest } from '@operant/apimachinery';

export interface ContinuePosition {
  /** The revision of the snapshot every page is read at; -1 for the latest. */
  rev: number;
  /** Resume with the first key strictly after this one. */
  after: string;
}

export function encodeContinue(pos: ContinuePosition): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: pos.rev, start: `${pos.after}\u0000` })).toString('base64url');
}

export function decodeContinue(token: string): ContinuePosition {
  try {
    const raw = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { v?: unknown; rv?: unknown; start?: unknown };
    if (raw.v !== 'meta.k8s.io/v1') throw new Error('version');
    // -1 means "continue at the latest revision" (handed out with an expired-continue 410, as kube does).
    if (typeof raw.rv !== 'number' || !Number.isInteger(raw.rv) || (raw.rv <= 0 && raw.rv !== -1)) throw new Error('rv');
    if (typeof raw.start !== 'string' || !raw.start.endsWith('\u0000')) throw new Error('start');
    return { rev: raw.rv, after: raw.start.slice(0, -1) };
  } catch {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}
