/**
 * Names the root exported before the machinery moved behind subpaths (issue
 * 18), which this package's README showed users: they stay at the root for
 * one release, and go in the next.
 */
import { evaluateRules as celEvaluateRules } from './cel/index.js';
import { applyDefaults as schemaApplyDefaults, pruneValue as schemaPruneValue, validateValue as schemaValidateValue } from './schema/index.js';

/** @deprecated Import it from `@operant/apimachinery/schema`; the root's goes in the next release. */
export const validateValue = schemaValidateValue;
/** @deprecated Import it from `@operant/apimachinery/schema`; the root's goes in the next release. */
export const applyDefaults = schemaApplyDefaults;
/** @deprecated Import it from `@operant/apimachinery/schema`; the root's goes in the next release. */
export const pruneValue = schemaPruneValue;
/** @deprecated Import it from `@operant/apimachinery/cel`; the root's goes in the next release. */
export const evaluateRules = celEvaluateRules;
