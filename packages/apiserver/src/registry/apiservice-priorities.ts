/**
 * kube's priorities of the built-in group versions' APIServices
 * (apiservice-priorities.json, made by scripts/gen-apiservice-priorities.ts),
 * read at first use rather than at every start.
 */
import { readFileSync } from 'node:fs';

export interface ApiServicePriority {
  /** groupPriorityMinimum: orders the groups in /apis, highest first. */
  group: number;
  /** versionPriority: orders a group's versions, highest first. */
  version: number;
}

let table: Record<string, ApiServicePriority> | undefined;

/** The priorities kube gives the built-in `group/version` (`v1` is `/v1`), or undefined for one it does not serve. */
export function builtinApiServicePriority(groupVersion: string): ApiServicePriority | undefined {
  table ??= (JSON.parse(readFileSync(new URL('./apiservice-priorities.json', import.meta.url), 'utf8')) as { priorities: Record<string, ApiServicePriority> }).priorities;
  return table[groupVersion];
}
