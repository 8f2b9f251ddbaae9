/** The printed result: one row per figure, with its baseline, the ratio and the noise. */
import { median, spread } from './stats.js';

export interface Row {
  figure: string;
  ours: string;
  baseline: string;
  ratio: string;
  noise: string;
  aim: string;
}

export const fmt = {
  ms: (v: number): string => (v < 10 ? `${v.toFixed(2)} ms` : `${v.toFixed(0)} ms`),
  us: (v: number): string => (v < 10 ? `${v.toFixed(2)} µs` : v < 100 ? `${v.toFixed(1)} µs` : `${v.toFixed(0)} µs`),
  rate: (v: number): string => `${Math.round(v).toLocaleString('en-US')}/s`,
  bytes: (v: number): string => (v >= 1024 * 1024 ? `${(v / 1024 / 1024).toFixed(1)} MiB` : v >= 1024 ? `${(v / 1024).toFixed(1)} KiB` : `${Math.round(v)} B`),
  pct: (v: number): string => (Number.isNaN(v) ? 'n/a' : `${(v * 100).toFixed(0)}%`),
  ratio: (v: number): string => `${v >= 10 ? v.toFixed(0) : v.toFixed(2)}×`,
};

/** "ours% / baseline%": the spread over repeats of each side. */
export function noise(ours: number[], baseline: number[]): string {
  return `${fmt.pct(spread(ours))} / ${fmt.pct(spread(baseline))}`;
}

/** A row from repeated measurements; `format` renders a median, `what` names the baseline. */
export function row(
  figure: string,
  ours: number[],
  baseline: number[],
  format: (v: number) => string,
  what: string,
  aim = '',
  aimMet?: (v: number) => boolean,
): Row {
  const o = median(ours);
  const b = median(baseline);
  const verdict = aimMet ? (aimMet(o) ? ' (met)' : ' (missed)') : '';
  return { figure, ours: format(o), baseline: `${format(b)} ${what}`, ratio: fmt.ratio(o / b), noise: noise(ours, baseline), aim: aim ? `${aim}${verdict}` : '' };
}

export function render(rows: Row[]): string {
  const header: Row = { figure: 'Figure', ours: 'Operant (median)', baseline: 'Baseline (median, same run)', ratio: 'Ratio', noise: 'Noise (ours / base)', aim: 'Aim' };
  const keys = Object.keys(header) as Array<keyof Row>;
  const widths = keys.map((k) => Math.max(...[header, ...rows].map((r) => r[k].length)));
  const line = (r: Row): string => `| ${keys.map((k, i) => r[k].padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
