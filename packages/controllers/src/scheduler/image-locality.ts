/**
 * kube-scheduler's ImageLocality score: a node that already holds the pod's
 * container images (in its status.images) scores higher, by the images'
 * sizes, scaled by the share of nodes that hold each (so an image every node
 * has does not draw pods to a few), between 23 MB and 1000 MB a container.
 * Simulated nodes report no images: then every node scores 0 and the plugin
 * is skipped.
 */
import type { NodeObject, PodObject } from '../objects.js';
import { maxNodeScore, type Candidate, type NodeScorer } from './node-scorer.js';

const mb = 1024 * 1024;
/** kube's minThreshold and maxContainerThreshold. */
const minThreshold = 23 * mb;
const maxContainerThreshold = 1000 * mb;

/** An image as the nodes report it: its size and the nodes that hold it (kube's ImageStateSummary). */
interface ImageState {
  size: number;
  nodes: Set<string>;
}

/** The images of a node list, by name, worked out once per list (the scheduler keeps its list until a node changes). */
const imageStates = new WeakMap<readonly NodeObject[], Map<string, ImageState>>();

function imagesOf(nodes: readonly NodeObject[]): Map<string, ImageState> {
  let states = imageStates.get(nodes);
  if (!states) {
    states = new Map();
    for (const node of nodes) {
      const name = node.metadata.name ?? '';
      for (const image of node.status?.images ?? []) {
        for (const imageName of image.names ?? []) {
          let state = states.get(imageName);
          if (!state) states.set(imageName, (state = { size: image.sizeBytes ?? 0, nodes: new Set() }));
          state.nodes.add(name);
        }
      }
    }
    imageStates.set(nodes, states);
  }
  return states;
}

/** kube's normalizedImageName: a reference with no tag gets `:latest` (a digest's `@sha256:` counts as a tag here, as in kube). */
function normalizedImageName(image: string): string {
  return image.lastIndexOf(':') <= image.lastIndexOf('/') ? `${image}:latest` : image;
}

/**
 * Prepares the ImageLocality score for one decision; undefined when no node
 * reports an image the pod runs.
 */
export function imageLocalityScorer(pod: PodObject, nodes: readonly NodeObject[]): NodeScorer | undefined {
  const states = imagesOf(nodes);
  if (states.size === 0) return undefined;
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const wanted = containers.map((c) => states.get(normalizedImageName(c.image ?? ''))).filter((s): s is ImageState => s !== undefined);
  if (wanted.length === 0) return undefined;
  return new ImageLocalityScorer(wanted, maxContainerThreshold * containers.length, nodes.length);
}

class ImageLocalityScorer implements NodeScorer {
  readonly weight = 1;

  constructor(
    private readonly wanted: readonly ImageState[],
    private readonly maxThreshold: number,
    private readonly totalNodes: number,
  ) {}

  score({ name }: Candidate): number {
    let sum = 0;
    // kube's scaledImageScore: the size times the share of nodes that have the image, rounded down.
    for (const state of this.wanted) if (state.nodes.has(name)) sum += Math.trunc(state.size * (state.nodes.size / this.totalNodes));
    const clamped = Math.min(Math.max(sum, minThreshold), this.maxThreshold);
    return Math.trunc((maxNodeScore * (clamped - minThreshold)) / (this.maxThreshold - minThreshold));
  }
}
