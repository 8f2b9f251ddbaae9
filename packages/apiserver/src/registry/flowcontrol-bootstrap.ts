/**
 * The FlowSchemas and PriorityLevelConfigurations every kube-apiserver keeps
 * (k8s.io/apiserver's flowcontrol bootstrap configuration, written by
 * scripts/gen-flowcontrol-bootstrap.ts): the mandatory exempt and catch-all
 * ones and the suggested ones, ensured at each start as kube's APF config
 * ensurer does: created when missing, their spec put back when the object
 * still carries `apf.kubernetes.io/autoupdate-spec: "true"`, left alone when
 * a user set it to anything else. The server stores them; it does not apply
 * priority and fairness.
 */
import { readFileSync } from 'node:fs';
import { StatusError, jsonEqual, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from './catalog.js';

interface Configuration {
  priorityLevelConfigurations: KubeObject[];
  flowSchemas: KubeObject[];
}

/** The file, read when first asked for (a new store takes these objects from bootstrap-objects.json). */
let bootstrap: { mandatory: Configuration; suggested: Configuration } | undefined;

/** kube's annotation that lets the server keep a bootstrap object's spec up to date. */
export const autoUpdateAnnotation = 'apf.kubernetes.io/autoupdate-spec';

/** The bootstrap objects, mandatory first, priority levels before the flow schemas that name them. */
export function flowcontrolBootstrapObjects(): { priorityLevelConfigurations: KubeObject[]; flowSchemas: KubeObject[] } {
  bootstrap ??= JSON.parse(readFileSync(new URL('./flowcontrol-bootstrap.json', import.meta.url), 'utf8')) as { mandatory: Configuration; suggested: Configuration };
  return {
    priorityLevelConfigurations: [...bootstrap.mandatory.priorityLevelConfigurations, ...bootstrap.suggested.priorityLevelConfigurations],
    flowSchemas: [...bootstrap.mandatory.flowSchemas, ...bootstrap.suggested.flowSchemas],
  };
}

/**
 * Creates the missing bootstrap objects and restores the spec of those that
 * still auto-update. (A new store gets them with the other bootstrap
 * objects, from bootstrap-objects.json.)
 */
export async function ensureFlowcontrolBootstrap(catalog: ResourceCatalog): Promise<void> {
  const objects = flowcontrolBootstrapObjects();
  const opts = { dryRun: false, fieldValidation: 'Ignore' as const, fieldManager: 'api-priority-and-fairness-config-producer-v1' };
  for (const [resource, wanted] of [['prioritylevelconfigurations', objects.priorityLevelConfigurations], ['flowschemas', objects.flowSchemas]] as const) {
    const rs = catalog.lookup('flowcontrol.apiserver.k8s.io', 'v1', resource)!;
    for (const object of wanted) {
      const name = object.metadata.name!;
      // As kube's ensurer, the object is created only when it is not there: a create that would
      // answer 409 goes through the whole write path first (a restart finds all of them there).
      if (!rs.mvcc.get(rs.key('', name))) {
        try {
          await rs.create('', structuredClone(object), opts);
          continue;
        } catch (e) {
          if (!(e instanceof StatusError && e.code === 409)) throw e;
        }
      }
      const current = await rs.get('', name);
      if (current.metadata.annotations?.[autoUpdateAnnotation] !== 'true') continue;
      const spec = structuredClone(object);
      rs.strategy.applyDefaults(spec);
      if (jsonEqual(current.spec, spec.spec)) continue;
      await rs.update('', name, { ...structuredClone(current), spec: spec.spec }, opts);
    }
  }
}
