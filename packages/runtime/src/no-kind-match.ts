/**
 * The error for a kind the server does not serve (apimachinery's
 * `meta.NoKindMatchError`, with its message): a CRD that is not installed, or
 * an API group that is not enabled. Retrying cannot fix it, so an informer
 * whose first list meets it stops, and a manager or controller waiting for
 * that informer fails at once instead of logging list errors forever.
 */
import type { Kind } from './kind.js';

/**
 * The server does not serve `kind`: discovery (`/apis/<group>/<version>`, or
 * `/api/v1`) has no such resource. It carries no `cause`: the list's 404 is
 * not "object not found", and must not look like one to `ignoreNotFound` or
 * any other check that follows the `cause` chain.
 *
 * @example
 * ```ts
 * import { handleSignals, NoKindMatchError } from '@operant/runtime';
 *
 * await mgr.start(handleSignals()).catch((err: unknown) => {
 *   // no matches for kind "CronJob" in version "batch.tutorial.kubebuilder.io/v1"
 *   if (err instanceof NoKindMatchError) console.error(`install the CRD of ${err.kind} in ${err.group} first`);
 *   throw err;
 * });
 * ```
 */
export class NoKindMatchError extends Error {
  readonly group: string;
  readonly version: string;
  readonly kind: string;

  constructor(kind: Pick<Kind, 'group' | 'version' | 'kind'>) {
    const version = kind.group ? `${kind.group}/${kind.version}` : kind.version;
    super(`no matches for kind "${kind.kind}" in version "${version}"`);
    this.name = 'NoKindMatchError';
    this.group = kind.group;
    this.version = kind.version;
    this.kind = kind.kind;
  }
}
