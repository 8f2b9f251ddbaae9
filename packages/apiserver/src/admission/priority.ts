/**
 * kube's Priority admission plugin (plugin/pkg/admission/priority) for pods:
 * a new pod's `priorityClassName` names the PriorityClass whose value and
 * preemptionPolicy it gets; without one, the global default class's (the
 * lowest valued if a race left two), else priority 0 and
 * PreemptLowerPriority. A class that does not exist, or a priority or policy
 * the pod set itself that disagrees with its class, is refused (403). On an
 * update the stored priority is kept when the new pod leaves it out.
 */
import { forbidden, type KubeObject } from '@operant/apimachinery';

type Json = Record<string, unknown>;

/** The PriorityClasses admission reads (the stored ones, the system classes among them). */
export interface PriorityClassSource {
  get(name: string): KubeObject | undefined;
  list(): KubeObject[];
}

const pods = { group: '', resource: 'pods' };

/** kube's getDefaultPriorityClass: the global default class, the lowest valued if several claim it. */
export function globalDefaultPriorityClass(classes: KubeObject[]): KubeObject | undefined {
  let found: KubeObject | undefined;
  for (const pc of classes) {
    const value = (pc as unknown as Json).value as number;
    if ((pc as unknown as Json).globalDefault === true && (!found || ((found as unknown as Json).value as number) > value)) found = pc;
  }
  return found;
}

/** Resolves a new pod's priority from its PriorityClass; throws kube's Forbidden when it cannot. */
export function admitPodPriority(pod: KubeObject, classes: PriorityClassSource): void {
  const spec = (pod.spec ??= {}) as Json;
  // admission.NewForbidden names the object by its name, else its generateName, else "Unknown".
  const refuse = (why: string): never => {
    throw forbidden(pods, pod.metadata.name || pod.metadata.generateName || 'Unknown', why);
  };
  let priority: number;
  let policy: string | undefined;
  const named = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  if (named === '') {
    const fallback = globalDefaultPriorityClass(classes.list()) as Json | undefined;
    priority = (fallback?.value as number | undefined) ?? 0;
    policy = fallback ? (fallback.preemptionPolicy as string | undefined) : 'PreemptLowerPriority';
    if (fallback) spec.priorityClassName = (fallback.metadata as Json).name;
  } else {
    const pc = classes.get(named) as Json | undefined;
    if (!pc) return refuse(`no PriorityClass with name ${named} was found`);
    priority = pc.value as number;
    policy = pc.preemptionPolicy as string | undefined;
  }
  if (typeof spec.priority === 'number' && spec.priority !== priority) {
    refuse(`the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
  }
  spec.priority = priority;
  if (policy === undefined) return;
  if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy !== policy) {
    refuse(`the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
  }
  spec.preemptionPolicy = policy;
}

/** On an update, a pod that leaves out its priority or preemptionPolicy keeps the stored ones. */
export function keepPodPriority(pod: KubeObject, old: KubeObject): void {
  const spec = (pod.spec ??= {}) as Json;
  const was = (old.spec ?? {}) as Json;
  if (spec.priority === undefined && was.priority !== undefined) spec.priority = was.priority;
  if (spec.preemptionPolicy === undefined && was.preemptionPolicy !== undefined) spec.preemptionPolicy = was.preemptionPolicy;
}
