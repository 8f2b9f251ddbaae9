/**
 * English plurals of kind names, by the rules the flect library (which
 * kubebuilder and controller-gen use) applies to the words kinds are made of.
 */
const irregular: Record<string, string> = {
  person: 'people',
  man: 'men',
  woman: 'women',
  child: 'children',
  mouse: 'mice',
  goose: 'geese',
  foot: 'feet',
  tooth: 'teeth',
  datum: 'data',
  index: 'indices',
  matrix: 'matrices',
  vertex: 'vertices',
  status: 'statuses',
  quiz: 'quizzes',
  ox: 'oxen',
  leaf: 'leaves',
  life: 'lives',
  knife: 'knives',
  wife: 'wives',
  half: 'halves',
  shelf: 'shelves',
  wolf: 'wolves',
  potato: 'potatoes',
  tomato: 'tomatoes',
  hero: 'heroes',
  echo: 'echoes',
  criterion: 'criteria',
  phenomenon: 'phenomena',
  analysis: 'analyses',
  basis: 'bases',
  axis: 'axes',
  crisis: 'crises',
  thesis: 'theses',
};

const uncountable = new Set(['equipment', 'information', 'rice', 'money', 'species', 'series', 'fish', 'sheep', 'news', 'metadata', 'data', 'endpoints']);

/**
 * The plural of a lower-case word, as the resource name of a kind.
 *
 * @example
 * ```ts
 * import { pluralize } from '@operant/codegen';
 *
 * pluralize('sidecarset'); // 'sidecarsets'
 * pluralize('policy'); // 'policies'
 * pluralize('ingress'); // 'ingresses'
 * ```
 */
export function pluralize(word: string): string {
  if (uncountable.has(word)) return word;
  const exact = irregular[word];
  if (exact) return exact;
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}
