/**
 * The two hashes of a SidecarSet (Kruise's pkg/control/sidecarcontrol/hash.go),
 * written into its `kruise.io/sidecarset-hash` and
 * `kruise.io/sidecarset-hash-without-image` annotations and, per SidecarSet,
 * into the pods it injects. A pod whose hash equals its SidecarSet's is up to
 * date; one whose without-image hash is equal differs only by images, which an
 * in-place upgrade can change.
 *
 * hash = encode(hex(sha256(json))), json being Go's rendering of
 * `{"containers":[...]}`, plus `"initContainers":[...]` when one of them is a
 * native sidecar (`restartPolicy: Always`). Byte for byte the same as Kruise's,
 * so that pods keep their state when the operator changes.
 */
import { createHash } from 'node:crypto';
import type { SidecarContainer, SidecarSetSpec } from '../../api/v1alpha1/sidecarset-types.js';
import { containerGoStructs } from './container-go-fields.js';
import { marshalGo, type GoStruct } from './go-json.js';

/** SidecarContainer as OpenKruise v1.8.4 declares it: corev1.Container, then its own fields. */
const sidecarGoStructs: Record<string, GoStruct> = {
  ...containerGoStructs,
  SidecarContainer: [
    [',inline', 'Container'],
    ['podInjectPolicy,omitempty', 'string'],
    ['upgradeStrategy,omitempty', 'SidecarContainerUpgradeStrategy'],
    ['shareVolumePolicy,omitempty', 'ShareVolumePolicy'],
    ['transferEnv,omitempty', '[]TransferEnvVar'],
  ],
  SidecarContainerUpgradeStrategy: [
    ['upgradeType,omitempty', 'string'],
    ['hotUpgradeEmptyImage,omitempty', 'string'],
  ],
  ShareVolumePolicy: [['type,omitempty', 'string']],
  TransferEnvVar: [
    ['sourceContainerName,omitempty', 'string'],
    ['sourceContainerNameFrom,omitempty', '*SourceContainerNameSource'],
    ['envName,omitempty', 'string'],
    ['envNames,omitempty', '[]string'],
  ],
  SourceContainerNameSource: [['fieldRef,omitempty', '*ObjectFieldSelector']],
};

/** The hash of the SidecarSet's containers (the `kruise.io/sidecarset-hash` annotation). */
export function sidecarSetHash(spec: SidecarSetSpec | undefined): string {
  return safeEncode(sha256Hex(hashInput(spec)));
}

/** The same hash with every image blanked (the `kruise.io/sidecarset-hash-without-image` annotation). */
export function sidecarSetHashWithoutImage(spec: SidecarSetSpec | undefined): string {
  const blank = (list: SidecarContainer[] | undefined) => list?.map((c) => ({ ...c, image: '' }));
  return sidecarSetHash({ ...spec, containers: blank(spec?.containers), initContainers: blank(spec?.initContainers) });
}

/** The JSON that is hashed, as Go's json.Marshal of a map (keys sorted) writes it. */
export function hashInput(spec: SidecarSetSpec | undefined): string {
  const containers = marshalSidecarContainers(spec?.containers);
  const withInit = spec?.initContainers?.some(isNativeSidecar) ?? false;
  if (!withInit) return `{"containers":${containers}}`;
  return `{"containers":${containers},"initContainers":${marshalSidecarContainers(spec?.initContainers)}}`;
}

/** A list of SidecarContainers as Go's json.Marshal writes a []SidecarContainer (`null` when absent). */
export function marshalSidecarContainers(list: unknown): string {
  return marshalGo(list, '[]SidecarContainer', sidecarGoStructs);
}

/** An init container with `restartPolicy: Always`: a Kubernetes native sidecar. */
export function isNativeSidecar(container: { restartPolicy?: string }): boolean {
  return container.restartPolicy === 'Always';
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const alphanums = 'bcdfghjklmnpqrstvwxz2456789';

/** k8s.io/apimachinery's rand.SafeEncodeString: each character to one of 27 that spell no words. */
export function safeEncode(s: string): string {
  let out = '';
  for (const c of s) out += alphanums[c.codePointAt(0)! % alphanums.length];
  return out;
}
