/**
 * The worker thread of yaml-off-thread.ts: decodes YAML create and update
 * bodies with the same code the main thread uses, and answers with the
 * object as JSON text (which the main thread parses natively), its duplicate
 * keys, or the Status it was refused with.
 */
import { parentPort } from 'node:worker_threads';
import { StatusError } from '@operant/apimachinery';
import { decodeYamlObject } from './object-body.js';
import { duplicateFieldsOf } from './duplicate-fields.js';
import type { YamlReply, YamlRequest } from './yaml-off-thread.js';

parentPort!.on('message', ({ id, body, into }: YamlRequest) => {
  let reply: YamlReply;
  try {
    const value = decodeYamlObject(Buffer.from(body.buffer, body.byteOffset, body.byteLength), into);
    reply = { id, json: JSON.stringify(value), duplicates: duplicateFieldsOf(value) };
  } catch (e) {
    reply = e instanceof StatusError ? { id, status: e.status } : { id, message: (e as Error).message };
  }
  parentPort!.postMessage(reply);
});
