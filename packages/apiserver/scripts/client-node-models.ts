/**
 * OpenAPI definitions of kinds the `kubernetes-types` declarations lack
 * (kube-aggregator's apiregistration.k8s.io), read from the models of
 * `@kubernetes/client-node`, which openapi-generator wrote from kube's own
 * OpenAPI document: each model class carries its fields' JSON names, types
 * and formats in `attributeTypeMap`, and kube's descriptions as JSDoc in its
 * declaration file. A development-time source, used by gen-builtin-schemas.ts.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Project, type ClassDeclaration, type JSDocableNode } from 'ts-morph';
import type { OpenApiSchema } from '@operant/apimachinery';

const require = createRequire(import.meta.url);
const modelsDir = join(dirname(require.resolve('@kubernetes/client-node/package.json')), 'dist', 'gen', 'models');
const REF_PREFIX = '#/components/schemas/';
const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';

interface Attribute {
  name: string;
  baseName: string;
  type: string;
  format: string;
}

function docOf(node: JSDocableNode): string | undefined {
  const docs = node.getJsDocs();
  const text = docs.length ? docs[docs.length - 1].getInnerText().trim() : '';
  return text === '' ? undefined : text;
}

/**
 * The definitions named in `models` (kube definition name -> client-node
 * class), with `$ref`s to each other and to `refs` (client-node class -> kube
 * definition name, for the classes outside the set, such as V1ObjectMeta).
 */
export async function readClientNodeModels(models: Record<string, string>, refs: Record<string, string>): Promise<Record<string, OpenApiSchema>> {
  const definitionOf = new Map<string, string>([...Object.entries(models).map(([def, cls]): [string, string] => [cls, def]), ...Object.entries(refs)]);
  const project = new Project({ skipAddingFilesFromTsConfig: true });
  const out: Record<string, OpenApiSchema> = {};
  for (const [definition, cls] of Object.entries(models)) {
    const module = (await import(pathToFileURL(join(modelsDir, `${cls}.js`)).href)) as Record<string, { attributeTypeMap: Attribute[] }>;
    const declaration: ClassDeclaration = project.addSourceFileAtPath(join(modelsDir, `${cls}.d.ts`)).getClassOrThrow(cls);
    const schemaOf = (type: string, format: string): OpenApiSchema => {
      const array = /^Array<(.+)>$/.exec(type);
      if (array) return { type: 'array', items: schemaOf(array[1], format) };
      const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
      if (map) return { type: 'object', additionalProperties: schemaOf(map[1], format) };
      if (type === 'string') return format === 'byte' ? { type: 'string', format } : { type: 'string' };
      if (type === 'number') return { type: 'integer', format: format || 'int32' };
      if (type === 'boolean') return { type: 'boolean' };
      if (type === 'Date') return { $ref: REF_PREFIX + TIME };
      const target = definitionOf.get(type);
      if (!target) throw new Error(`${cls}: no definition known for ${type}`);
      return { $ref: REF_PREFIX + target };
    };
    const properties: Record<string, OpenApiSchema> = {};
    const required: string[] = [];
    for (const attribute of module[cls].attributeTypeMap) {
      const prop = declaration.getProperties().find((p) => p.getName().replace(/^'|'$/g, '') === attribute.name);
      if (!prop) throw new Error(`${cls}.${attribute.name}: not declared`);
      const schema = schemaOf(attribute.type, attribute.format);
      const description = docOf(prop);
      properties[attribute.baseName] = !description ? schema : schema.$ref ? { allOf: [schema], description } : { ...schema, description };
      if (!prop.hasQuestionToken()) required.push(attribute.baseName);
    }
    const description = docOf(declaration);
    out[definition] = { ...(description ? { description } : {}), properties, ...(required.length ? { required } : {}), type: 'object' };
  }
  return out;
}
