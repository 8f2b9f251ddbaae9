/** Small statistics for benchmark figures: medians and the spread over repeats. */

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Machine noise over repeats: (max - min) / median, as a fraction. */
export function spread(values: number[]): number {
  if (values.length < 2) return NaN;
  return (Math.max(...values) - Math.min(...values)) / median(values);
}
