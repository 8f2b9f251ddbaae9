/**
 * The named string formats of the Kubernetes CEL `format` library
 * (`format.dns1123Label().validate(s)`, `format.named('uuid')`), with kube's messages.
 */
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../validation/names.js';
import { parseGoUrl } from './url.js';
import { parseTimestamp } from './values.js';

/** A named string format of the `format` library. */
export class NamedFormat {
  constructor(
    readonly name: string,
    readonly check: (s: string) => string[],
  ) {}
}


function dnsLabelPrefixMask(s: string): string {
  return s.endsWith('-') ? `${s.slice(0, -1)}a` : s;
}

function uuidCheck(s: string): string[] {
  return /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s) ? [] : ['does not match the UUID format'];
}

function byteCheck(s: string): string[] {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s) ? [] : ['invalid base64'];
}

function dateCheck(s: string): string[] {
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(s) && parseTimestamp(s)?.toISOString().slice(0, 10) === s;
  return ok ? [] : ['invalid date'];
}

function dateTimeCheck(s: string): string[] {
  return parseTimestamp(s) !== undefined && /[Tt]/.test(s) ? [] : ['invalid datetime'];
}

function uriCheck(s: string): string[] {
  try {
    parseGoUrl(s, true);
    return [];
  } catch (e) {
    return [(e as Error).message];
  }
}

/** The formats of `format.<name>()` and `format.named(name)`. */
export const namedFormats: ReadonlyMap<string, NamedFormat> = new Map([
  ['dns1123Label', new NamedFormat('DNS1123Label', (s) => isDNS1123Label(s))],
  ['dns1123Subdomain', new NamedFormat('DNS1123Subdomain', (s) => isDNS1123Subdomain(s))],
  ['dns1035Label', new NamedFormat('DNS1035Label', (s) => isDNS1035Label(s))],
  ['qualifiedName', new NamedFormat('QualifiedName', (s) => isQualifiedName(s))],
  ['dns1123LabelPrefix', new NamedFormat('DNS1123LabelPrefix', (s) => isDNS1123Label(dnsLabelPrefixMask(s)))],
  ['dns1123SubdomainPrefix', new NamedFormat('DNS1123SubdomainPrefix', (s) => isDNS1123Subdomain(dnsLabelPrefixMask(s)))],
  ['dns1035LabelPrefix', new NamedFormat('DNS1035LabelPrefix', (s) => isDNS1035Label(dnsLabelPrefixMask(s)))],
  ['labelValue', new NamedFormat('LabelValue', (s) => isValidLabelValue(s))],
  ['uri', new NamedFormat('URI', uriCheck)],
  ['uuid', new NamedFormat('uuid', uuidCheck)],
  ['byte', new NamedFormat('byte', byteCheck)],
  ['date', new NamedFormat('date', dateCheck)],
  ['datetime', new NamedFormat('datetime', dateTimeCheck)],
]);
