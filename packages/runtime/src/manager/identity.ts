/**
 * A leader-election identity unique to this process, as controller-runtime
 * makes it: the host name, an underscore, and a random UUID.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * A fresh identity, e.g. `web-7d9f_1b4e...`. Two processes (or two managers in
 * one process) never share one, so a restarted process never mistakes its
 * predecessor's lease for its own.
 *
 * @example
 * ```ts
 * import { LeaderElector, leaderIdentity, LeaseLock } from '@operant/runtime';
 *
 * const elector = new LeaderElector(new LeaseLock(client, { name: 'my-operator', namespace: 'default', identity: leaderIdentity() }), { name: 'my-operator' });
 * ```
 */
export function leaderIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}
