/**
 * `/openapi/v2`: the server publishes its schemas in OpenAPI v3 (what kubectl
 * 1.29+ and `kubectl explain` read). The v2 document is served without
 * definitions, in JSON and in the protobuf form kubectl asks for (gnostic's
 * openapi_v2.Document). kubectl falls back to it for client-side validation of
 * a `kind: List` file; finding no schema for a kind, it leaves validation to
 * the server, which validates every item (fieldValidation) as for any apply.
 */
import { kubeVersion } from '../version.js';

/** The media type kubectl requests the v2 document in (and its newer spelling). */
export const openApiV2ProtobufAccepts = ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'];
/** The media type the protobuf document is sent as: the spelling Go's mime parser accepts, as kube-openapi sends it. */
export const openApiV2ProtobufType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

const info = { title: 'Kubernetes', version: kubeVersion.gitVersion };

export function openApiV2Json(): string {
  return JSON.stringify({ swagger: '2.0', info, paths: {}, definitions: {} });
}

/** A length-delimited protobuf field. */
function field(number: number, payload: Buffer): Buffer {
  return Buffer.concat([varint((number << 3) | 2), varint(payload.length), payload]);
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  let v = n;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

/** openapi_v2.Document { swagger = 1; info = 2 { title = 1; version = 2 } }. */
export function openApiV2Protobuf(): Buffer {
  const infoMessage = Buffer.concat([field(1, Buffer.from(info.title)), field(2, Buffer.from(info.version))]);
  return Buffer.concat([field(1, Buffer.from('2.0')), field(2, infoMessage)]);
}
