/**
 * The strategy of discovery.k8s.io/v1 EndpointSlices
 * (pkg/registry/discovery/endpointslice/strategy.go): kube's defaults and
 * pkg/apis/discovery/validation's checks users hit, in kube's words.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { fieldErrors, isDNS1123Label, isDNS1123Subdomain, type FieldError, type KubeObject } from '@operant/apimachinery';
import { baseStrategy, type Strategy } from './strategy.js';
import { validateImmutableField } from './immutable-field.js';
import { defaultEndpointSlice } from './defaults/discovery.js';
import { objectsAt, type Json } from './defaults/json-fields.js';
import { isValidPortNum } from './network-names.js';

const addressTypes = ['FQDN', 'IPv4', 'IPv6'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const maxEndpoints = 1000;
const maxAddresses = 100;
const maxPorts = 20000;

function addressProblems(addressType: unknown, address: string): string[] {
  switch (addressType) {
    case 'IPv4':
      return isIPv4(address) ? [] : ['must be a valid IPv4 address'];
    case 'IPv6':
      return isIPv6(address) ? [] : ['must be a valid IPv6 address'];
    case 'FQDN':
      return isDNS1123Subdomain(address);
    default:
      return [];
  }
}

function validateEndpointSlice(o: KubeObject): FieldError[] {
  const slice = o as unknown as Json;
  const errs: FieldError[] = [];
  const addressType = slice.addressType;
  if (addressType === undefined || addressType === '') errs.push(fieldErrors.required('addressType', ''));
  else if (!addressTypes.includes(String(addressType))) errs.push(fieldErrors.notSupported('addressType', addressType, addressTypes));

  const endpoints = objectsAt(slice, 'endpoints');
  if (endpoints.length > maxEndpoints) errs.push(fieldErrors.tooMany('endpoints', endpoints.length, maxEndpoints));
  endpoints.forEach((endpoint, i) => {
    const at = `endpoints[${i}].addresses`;
    const addresses = Array.isArray(endpoint.addresses) ? (endpoint.addresses as unknown[]) : [];
    if (addresses.length === 0) errs.push(fieldErrors.required(at, 'must contain at least 1 address'));
    else if (addresses.length > maxAddresses) errs.push(fieldErrors.tooMany(at, addresses.length, maxAddresses));
    addresses.forEach((address, j) => {
      for (const msg of addressProblems(addressType, String(address))) errs.push(fieldErrors.invalid(`${at}[${j}]`, address, msg));
    });
    if (typeof endpoint.nodeName === 'string') {
      for (const msg of isDNS1123Subdomain(endpoint.nodeName)) errs.push(fieldErrors.invalid(`endpoints[${i}].nodeName`, endpoint.nodeName, msg));
    }
    if (typeof endpoint.hostname === 'string') {
      for (const msg of isDNS1123Label(endpoint.hostname)) errs.push(fieldErrors.invalid(`endpoints[${i}].hostname`, endpoint.hostname, msg));
    }
  });

  const ports = objectsAt(slice, 'ports');
  if (ports.length > maxPorts) errs.push(fieldErrors.tooMany('ports', ports.length, maxPorts));
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = `ports[${i}]`;
    if (typeof port.name === 'string' && port.name !== '') {
      for (const msg of isDNS1123Label(port.name)) errs.push(fieldErrors.invalid(`${at}.name`, port.name, msg));
      if (names.has(port.name)) errs.push(fieldErrors.duplicate(`${at}.name`, port.name));
      names.add(port.name);
    }
    if (port.protocol === undefined || port.protocol === null) errs.push(fieldErrors.required(`${at}.protocol`, ''));
    else if (!protocols.includes(String(port.protocol))) errs.push(fieldErrors.notSupported(`${at}.protocol`, port.protocol, protocols));
    if (typeof port.port === 'number') for (const msg of isValidPortNum(port.port)) errs.push(fieldErrors.invalid(`${at}.port`, port.port, msg));
  });
  return errs;
}

/** The discovery.k8s.io/v1 strategies, keyed `group/resource`. */
export function discoveryStrategies(): Array<[string, Strategy]> {
  return [
    [
      'discovery.k8s.io/endpointslices',
      baseStrategy({
        tracksGeneration: true,
        applyDefaults: defaultEndpointSlice,
        validate: validateEndpointSlice,
        validateUpdate(o, old) {
          return [...validateEndpointSlice(o), ...validateImmutableField((o as unknown as Json).addressType, (old as unknown as Json).addressType, 'addressType')];
        },
      }),
    ],
  ];
}
