/**
 * The strategy of node.k8s.io/v1 RuntimeClasses
 * (pkg/registry/node/runtimeclass/strategy.go) with pkg/apis/node/validation's
 * checks in kube's words: the handler is a DNS label and never changes.
 */
import { fieldErrors, isDNS1123Label, validateLabels, type FieldError, type KubeObject } from '@operant/apimachinery';
import { baseStrategy, type Strategy } from './strategy.js';
import { validateImmutableField } from './immutable-field.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;

function validateRuntimeClass(o: KubeObject): FieldError[] {
  const rc = o as unknown as Json;
  const handler = typeof rc.handler === 'string' ? rc.handler : '';
  const errs = isDNS1123Label(handler).map((msg) => fieldErrors.invalid('handler', handler, msg));
  const scheduling = asObj(rc.scheduling);
  if (scheduling.nodeSelector !== undefined) errs.push(...validateLabels(asObj(scheduling.nodeSelector) as Record<string, string>, 'scheduling.nodeSelector'));
  return errs;
}

/** RuntimeClasses: a DNS-label handler that is immutable. */
export function runtimeClassStrategy(): Strategy {
  return baseStrategy({
    validate: validateRuntimeClass,
    validateUpdate(o, old) {
      return [...validateRuntimeClass(o), ...validateImmutableField((o as unknown as Json).handler, (old as unknown as Json).handler, 'handler')];
    },
  });
}
