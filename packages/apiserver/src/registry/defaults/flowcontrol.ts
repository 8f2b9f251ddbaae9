/**
 * flowcontrol.apiserver.k8s.io/v1 defaults (k8s.io/kubernetes
 * pkg/apis/flowcontrol/v1/defaults.go at 1.32).
 */
import { asObject, defaultNil, structAt, type Json } from './json-fields.js';

/** SetDefaults_FlowSchemaSpec: precedence 1000 when unset (zero). */
export function defaultFlowSchema(flowSchema: Json): void {
  const spec = structAt(flowSchema, 'spec');
  if (!spec.matchingPrecedence) spec.matchingPrecedence = 1000;
}

/** SetDefaults_PriorityLevelConfiguration and its Limited, Exempt and queuing parts. */
export function defaultPriorityLevelConfiguration(plc: Json): void {
  const spec = structAt(plc, 'spec');
  const limited = asObject(spec.limited);
  if (limited) {
    defaultNil(limited, 'nominalConcurrencyShares', 30);
    defaultNil(limited, 'lendablePercent', 0);
    const queuing = asObject(asObject(limited.limitResponse)?.queuing);
    if (queuing) {
      if (!queuing.handSize) queuing.handSize = 8;
      if (!queuing.queues) queuing.queues = 64;
      if (!queuing.queueLengthLimit) queuing.queueLengthLimit = 50;
    }
  }
  const exempt = asObject(spec.exempt);
  if (exempt) {
    defaultNil(exempt, 'nominalConcurrencyShares', 0);
    defaultNil(exempt, 'lendablePercent', 0);
  }
}
