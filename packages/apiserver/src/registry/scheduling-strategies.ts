/**
 * The strategy of scheduling.k8s.io/v1 PriorityClasses: kube's defaults,
 * pkg/apis/scheduling/validation's checks in kube's words, the system classes
 * every cluster has (which cannot be deleted), and the Priority admission
 * plugin's rule that only one class is the global default.
 */
import { fieldErrors, forbidden, type FieldError, type KubeObject } from '@operant/apimachinery';
import { baseStrategy, type Strategy } from './strategy.js';
import { validateImmutableField } from './immutable-field.js';
import { defaultPriorityClass } from './defaults/scheduling.js';
import { globalDefaultPriorityClass } from '../admission/priority.js';

type Json = Record<string, unknown>;

/** kube's HighestUserDefinablePriority. */
export const highestUserDefinablePriority = 1000000000;
const systemCriticalPriority = 2 * highestUserDefinablePriority;
const systemPrefix = 'system-';

/** The PriorityClasses kube-apiserver creates at start (scheduling's SystemPriorityClasses). */
export const systemPriorityClasses: ReadonlyArray<{ name: string; value: number; description: string }> = [
  { name: 'system-node-critical', value: systemCriticalPriority + 1000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: systemCriticalPriority, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

const gr = { group: 'scheduling.k8s.io', resource: 'priorityclasses' };
const preemptionPolicies = ['Never', 'PreemptLowerPriority'];

/** kube's IsKnownSystemPriorityClass, as the reason a `system-` name is refused (undefined: it is one). */
function systemClassProblem(name: string, value: unknown, globalDefault: boolean): string | undefined {
  const known = systemPriorityClasses.find((c) => c.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${name} PriorityClass must be ${known.value}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

function validatePriorityClass(o: KubeObject): FieldError[] {
  const pc = o as unknown as Json;
  const errs: FieldError[] = [];
  const name = o.metadata.name ?? '';
  if (name.startsWith(systemPrefix)) {
    const problem = systemClassProblem(name, pc.value, pc.globalDefault === true);
    if (problem) {
      errs.push(fieldErrors.forbidden('metadata.name', `priority class names with '${systemPrefix}' prefix are reserved for system use only. error: ${problem}`));
    }
  } else if (typeof pc.value === 'number' && pc.value > highestUserDefinablePriority) {
    errs.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`));
  }
  if (pc.preemptionPolicy !== undefined && !preemptionPolicies.includes(String(pc.preemptionPolicy))) {
    errs.push(fieldErrors.notSupported('preemptionPolicy', pc.preemptionPolicy, preemptionPolicies));
  }
  return errs;
}

/**
 * PriorityClasses; `stored` lists the ones stored, for the Priority admission
 * plugin's check that at most one is the global default (a 403, as admission answers).
 */
export function priorityClassStrategy(stored: () => KubeObject[]): Strategy {
  const refuseSecondDefault = (o: KubeObject): void => {
    if ((o as unknown as Json).globalDefault !== true) return;
    const other = globalDefaultPriorityClass(stored());
    if (other && other.metadata.name !== o.metadata.name) {
      throw forbidden(gr, o.metadata.name ?? '', `PriorityClass ${other.metadata.name} is already marked as default. Only one default can exist`);
    }
  };
  return baseStrategy({
    applyDefaults: defaultPriorityClass,
    admitCreate: refuseSecondDefault,
    validate: validatePriorityClass,
    validateUpdate(o, old) {
      refuseSecondDefault(o);
      const pc = o as unknown as Json;
      const was = old as unknown as Json;
      const errs = validatePriorityClass(o);
      if (pc.value !== was.value) errs.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
      errs.push(...validateImmutableField(pc.preemptionPolicy, was.preemptionPolicy, 'preemptionPolicy'));
      return errs;
    },
    beforeDelete(name) {
      if (systemPriorityClasses.some((c) => c.name === name)) throw forbidden(gr, name, 'this is a system priority class and cannot be deleted');
    },
  });
}
