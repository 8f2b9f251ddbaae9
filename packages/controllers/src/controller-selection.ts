/**
 * Which controllers a simulated cluster runs, chosen as kube-controller-manager's
 * `--controllers` flag chooses them: a list of names, `*` for every controller
 * on by default, `-name` to turn one off (`*,-deployment` runs all but the
 * deployment controller, so that an operator replacing it can be tested).
 */

/** The controllers of the simulated cluster, by kube-controller-manager's names (the scheduler and nodes are not among them). */
export const simulatedControllers = ['deployment', 'replicaset', 'replicationcontroller', 'statefulset', 'daemonset', 'job', 'cronjob', 'disruption', 'endpoint', 'endpointslice', 'persistentvolume-binder', 'nodelifecycle', 'podgc', 'resourcequota', 'horizontalpodautoscaling', 'csrcleaner', 'root-ca-cert-publisher'] as const;

/** The name of one of {@link simulatedControllers}. */
export type SimulatedControllerName = (typeof simulatedControllers)[number];

/**
 * The controllers a `--controllers` list turns on. Throws for a name that is
 * none of {@link simulatedControllers}, with kube-controller-manager's wording.
 *
 * @example
 * ```ts
 * import { selectControllers } from '@operant/controllers';
 *
 * selectControllers(['*', '-deployment']); // every controller but deployment
 * selectControllers(['job', 'cronjob']); // only those two
 * ```
 */
export function selectControllers(list: readonly string[]): Set<SimulatedControllerName> {
  const known = new Set<string>(simulatedControllers);
  const on = new Set<SimulatedControllerName>();
  const off = new Set<string>();
  let all = false;
  for (const raw of list) {
    const item = raw.trim();
    if (item === '') continue;
    if (item === '*') {
      all = true;
      continue;
    }
    const name = item.startsWith('-') ? item.slice(1) : item;
    if (!known.has(name)) throw new Error(`${JSON.stringify(name)} is not in the list of known controllers`);
    if (item.startsWith('-')) off.add(name);
    else on.add(name as SimulatedControllerName);
  }
  const chosen = new Set<SimulatedControllerName>(all ? simulatedControllers : []);
  for (const name of on) chosen.add(name);
  for (const name of off) chosen.delete(name as SimulatedControllerName);
  return chosen;
}
