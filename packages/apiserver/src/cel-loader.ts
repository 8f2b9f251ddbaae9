/**
 * CEL (the rule compiler and evaluator, and the cel-js library under it) is
 * loaded when first needed, not at start-up: most servers never see a CRD
 * with `x-kubernetes-validations` or a webhook with `matchConditions`, and
 * loading it costs every start. The write path awaits {@link loadCel} for an
 * object that mentions rules before it validates it (Strategy.prepareValidation),
 * CRD serving awaits it for stored CRDs with rules, and admission for stored
 * configurations with match conditions; the synchronous code after that finds it
 * loaded ({@link cel}).
 */
type CelRules = typeof import('@operant/apimachinery/cel');
type CelJs = typeof import('@marcbachmann/cel-js');

let loaded: { rules: CelRules; js: CelJs } | undefined;
let loading: Promise<void> | undefined;

/** Loads CEL (once); resolves when {@link cel} can be used. */
export function loadCel(): Promise<void> {
  loading ??= Promise.all([import('@operant/apimachinery/cel'), import('@marcbachmann/cel-js')]).then(([rules, js]) => {
    loaded = { rules, js };
  });
  return loading;
}

/** Whether {@link loadCel} has resolved. */
export function celLoaded(): boolean {
  return loaded !== undefined;
}

/** The loaded CEL modules; throws if used before {@link loadCel} resolved (a caller that forgot to await it). */
export function cel(): { rules: CelRules; js: CelJs } {
  if (!loaded) throw new Error('CEL used before it was loaded (loadCel)');
  return loaded;
}

/** Whether a value (a CRD, a schema) holds a non-empty `x-kubernetes-validations` anywhere. */
export function mentionsCelRules(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(mentionsCelRules);
  if (typeof value !== 'object' || value === null) return false;
  for (const [key, v] of Object.entries(value)) {
    if (key === 'x-kubernetes-validations' && Array.isArray(v) && v.length > 0) return true;
    if (mentionsCelRules(v)) return true;
  }
  return false;
}

/** Loads CEL if `needed`; undefined (nothing to await) otherwise or once loaded. */
export function loadCelIf(needed: boolean): Promise<void> | undefined {
  return needed && !celLoaded() ? loadCel() : undefined;
}
