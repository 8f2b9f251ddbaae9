/** Reading request bodies with kube's 3 MiB limit, and decoding JSON or YAML. */
import type { IncomingMessage } from 'node:http';
import { parseYaml } from './lazy-yaml.js';
import { StatusError, badRequest, requestEntityTooLarge, unsupportedMediaType } from '@operant/apimachinery';
import { decodeKubeProtobuf, kubeProtobufMediaType } from '../protobuf/decode.js';
import { decodeJsonObject, decodeYamlObject } from './object-body.js';
import { decodeYamlObjectOffThread } from './yaml-off-thread.js';
import { maxBodyNestingDepth, parseJsonLikeGo } from './go-json.js';
import { concatBytes } from '../storage/large-buffers.js';

/** kube-apiserver's default MaxRequestBodyBytes. */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

export function readBody(req: IncomingMessage, limit = maxRequestBodyBytes): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > limit) {
      req.resume();
      reject(requestEntityTooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(requestEntityTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      // A large body in pages of its own, which leave with it rather than stay in glibc's heap (see large-buffers.ts).
      if (!failed) resolve(concatBytes(chunks, size));
    });
    req.on('error', reject);
  });
}

/** The media type without parameters, lower-cased. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Decodes a create/update body: JSON, or YAML (as kube-apiserver accepts `application/yaml`),
 * failing with kube's words for an endpoint of kind `into` (see object-body.ts).
 */
export function decodeObjectBody(body: Buffer, contentType: string | undefined, into = 'Object'): unknown {
  if (isJsonBody(contentType)) return decodeJsonObject(body, into);
  const type = mediaType(contentType);
  if (type === 'application/yaml') return decodeYamlObject(body, into);
  // kubectl's typed commands (create namespace, create deployment, ...) send protobuf.
  if (type === kubeProtobufMediaType) return decodeKubeProtobuf(body).object;
  throw unsupportedMediaType(type, ['application/json', 'application/yaml', kubeProtobufMediaType]);
}

/**
 * Whether {@link decodeObjectBody} reads a body of this content type as JSON,
 * whose parse is a tree of fresh values (a YAML body's aliases share theirs).
 */
export function isJsonBody(contentType: string | undefined): boolean {
  const type = mediaType(contentType);
  return type === '' || type === 'application/json' || type === '*/*';
}

/** {@link decodeObjectBody}, with a large YAML body decoded on a worker thread (see yaml-off-thread.ts). */
export function decodeObjectBodyAsync(body: Buffer, contentType: string | undefined, into = 'Object'): Promise<unknown> {
  if (mediaType(contentType) === 'application/yaml') return decodeYamlObjectOffThread(body, into);
  return Promise.resolve().then(() => decodeObjectBody(body, contentType, into));
}

/** Parses a JSON body (DeleteOptions, Scale), failing as kube's decoder words it (`couldn't get version/kind; json parse error: ...`). */
export function parseJson(body: Buffer): unknown {
  const parsed = parseJsonLikeGo(body, maxBodyNestingDepth);
  if ('syntax' in parsed) throw badRequest(`couldn't get version/kind; json parse error: ${parsed.syntax}`);
  return parsed.value;
}

export function parseYamlBody(body: Buffer): unknown {
  try {
    return parseYaml(body.toString('utf8'), { version: '1.1', maxAliasCount: 100 }) as unknown;
  } catch (e) {
    if (e instanceof StatusError) throw e;
    throw badRequest(`error converting YAML to JSON: ${(e as Error).message.split('\n')[0]}`);
  }
}
