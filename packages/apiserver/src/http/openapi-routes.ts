/**
 * Serves `/openapi/v3` (the index) and the per-group-version documents,
 * rendered once per set of served resources and cached with their hashes, as
 * kube-apiserver does so that kubectl can cache them too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceCatalog } from '../registry/catalog.js';
import { allBuiltinSchemas } from '../openapi/builtin-schemas.js';
import { customResourceDefinitions } from '../openapi/custom-resource-schemas.js';
import { openApiV2Json, openApiV2Protobuf, openApiV2ProtobufAccepts, openApiV2ProtobufType } from '../openapi/v2-document.js';
import { openApiDocumentHash, openApiV3Document, openApiV3Index, openApiV3PathKey, type GroupVersion } from '../openapi/document.js';
import { notFoundPath } from './resource-handler.js';

interface Rendered {
  body: string;
  hash: string;
}

export class OpenApiRoutes {
  private cache = new Map<string, Rendered>();
  private groupVersions?: GroupVersion[];

  constructor(private readonly catalog: ResourceCatalog) {
    catalog.onChange(() => {
      this.cache = new Map();
      this.groupVersions = undefined;
    });
  }

  serve(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): void {
    if (path === '/openapi/v2') {
      const protobuf = openApiV2ProtobufAccepts.some((t) => (req.headers.accept ?? '').includes(t));
      const body = protobuf ? openApiV2Protobuf() : Buffer.from(openApiV2Json());
      res.writeHead(200, { 'Content-Type': protobuf ? openApiV2ProtobufType : 'application/json', 'Content-Length': body.length });
      res.end(body);
      return;
    }
    if (path === '/openapi/v3') {
      const index = openApiV3Index(this.served(), (gv) => this.render(gv).hash);
      return send(res, JSON.stringify(index), false);
    }
    const key = path.slice('/openapi/v3/'.length);
    const gv = this.served().find((g) => openApiV3PathKey(g) === key);
    if (!path.startsWith('/openapi/v3/') || !gv) throw notFoundPath();
    const doc = this.render(gv);
    // A request naming the current hash may be cached forever; any other is revalidated.
    send(res, doc.body, query.get('hash') === doc.hash);
  }

  private served(): GroupVersion[] {
    if (!this.groupVersions) {
      const seen = new Map<string, GroupVersion>();
      for (const r of this.catalog.infos()) seen.set(`${r.group}/${r.version}`, { group: r.group, version: r.version });
      this.groupVersions = [...seen.values()];
    }
    return this.groupVersions;
  }

  private render(gv: GroupVersion): Rendered {
    const key = openApiV3PathKey(gv);
    let r = this.cache.get(key);
    if (!r) {
      const infos = this.catalog.infos();
      const custom = infos.filter((i) => i.custom && i.group === gv.group && i.version === gv.version);
      // A group version of custom resources carries their schemas, and no strategic merge patch.
      const schemas = custom.length ? Object.assign({}, allBuiltinSchemas(), ...custom.map(customResourceDefinitions)) : allBuiltinSchemas();
      const body = JSON.stringify(openApiV3Document(gv, infos, schemas, { strategicMergePatch: custom.length === 0 }));
      r = { body, hash: openApiDocumentHash(body) };
      this.cache.set(key, r);
    }
    return r;
  }
}

function send(res: ServerResponse, body: string, immutable: boolean): void {
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': immutable ? 'public, immutable' : 'no-cache, private',
  });
  res.end(body);
}
