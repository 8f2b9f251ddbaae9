/**
 * Bad input is an error naming file:line:col, never a crash or a silent skip.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CodegenError, crdOutputs, loadProject } from '../src/index.js';
import { GROUP_INFO, writeProject } from './project.js';

function generateError(files: Record<string, string>): CodegenError {
  const dir = writeProject(files);
  try {
    crdOutputs(loadProject(['api/**/*.ts'], dir), { outputDir: 'out' });
  } catch (err) {
    assert.ok(err instanceof CodegenError, `expected a CodegenError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an error');
}

const kind = (spec: string, markers = ''): Record<string, string> => ({
  'api/v1/groupversion-info.ts': GROUP_INFO,
  'api/v1/foo.ts': `import type { ObjectMeta } from '@operant/runtime';
${spec}
// +kubebuilder:object:root=true${markers}
export interface Foo { metadata?: ObjectMeta; spec?: FooSpec }
`,
});

describe('errors', () => {
  it('an unknown marker', () => {
    const err = generateError(kind('export interface FooSpec {\n  // +kubebuilder:validation:Minimun=1\n  a?: number;\n}'));
    assert.equal(err.message, 'api/v1/foo.ts:3:6: unknown marker +kubebuilder:validation:Minimun');
  });

  it('a marker argument of the wrong type', () => {
    const err = generateError(kind('export interface FooSpec {\n  // +kubebuilder:validation:MaxLength=ten\n  a?: string;\n}'));
    assert.equal(err.message, 'api/v1/foo.ts:3:40: invalid marker +kubebuilder:validation:MaxLength: expected integer, got "ten"');
  });

  it('an unknown marker argument', () => {
    const err = generateError(kind('export interface FooSpec { a?: string }', '\n// +kubebuilder:resource:scope=Cluster,plural=foos'));
    assert.match(err.message, /^api\/v1\/foo\.ts:4:40: invalid marker \+kubebuilder:resource: unknown argument "plural"$/);
  });

  it('a marker on the wrong kind of value', () => {
    const err = generateError(kind('export interface FooSpec {\n  // +kubebuilder:validation:MaxItems=3\n  a?: string;\n}'));
    assert.equal(err.message, 'api/v1/foo.ts:3:6: +kubebuilder:validation:MaxItems: must apply maxitem to an array');
  });

  it('a marker where it cannot stand', () => {
    const err = generateError(kind('export interface FooSpec {\n  // +kubebuilder:subresource:status\n  a?: string;\n}'));
    assert.equal(err.message, 'api/v1/foo.ts:3:6: marker +kubebuilder:subresource:status cannot be used on a field (it applies to: type)');
  });

  it('a union of object types', () => {
    const err = generateError(kind('export interface FooSpec {\n  a?: { x: string } | { y: string };\n}'));
    assert.match(err.message, /^api\/v1\/foo\.ts:3:7: a union of different types cannot be made structural/);
  });

  it('any', () => {
    const err = generateError(kind('export interface FooSpec {\n  a?: any;\n}'));
    assert.match(err.message, /^api\/v1\/foo\.ts:3:7: 'any' cannot be made structural/);
  });

  it('unknown without a marker that gives it a schema', () => {
    const err = generateError(kind('export interface FooSpec {\n  a?: unknown;\n}'));
    assert.match(err.message, /^api\/v1\/foo\.ts:3:7: interface type is not supported in CRD schemas/);
  });

  it('a method', () => {
    const err = generateError(kind('export interface FooSpec {\n  run(): void;\n}'));
    assert.equal(err.message, 'api/v1/foo.ts:3:3: methods cannot be part of an API type: a schema describes data only');
  });

  it('a function-typed field', () => {
    const err = generateError(kind('export interface FooSpec {\n  cb?: () => void;\n}'));
    assert.equal(err.message, 'api/v1/foo.ts:3:8: functions cannot be part of an API type');
  });

  it('a type that cannot be found', () => {
    const err = generateError(kind('export interface FooSpec {\n  a?: Missing;\n}'));
    assert.equal(err.message, 'api/v1/foo.ts:3:7: cannot find type Missing: declare it in this file or import it');
  });

  it('a missing +groupName', () => {
    const files = kind('export interface FooSpec { a?: string }');
    files['api/v1/groupversion-info.ts'] = 'export {};\n';
    const err = generateError(files);
    assert.match(err.message, /^api\/v1\/foo\.ts:4:1: kind Foo has no API group: add a groupversion-info\.ts beside it with a comment line \/\/ \+groupName=example\.com$/);
  });

  it('no storage version among several, and two', () => {
    const version = (storage: boolean): string => `import type { ObjectMeta } from '@operant/runtime';
// +kubebuilder:object:root=true${storage ? '\n// +kubebuilder:storageversion' : ''}
export interface Foo { metadata?: ObjectMeta }`;
    const none = generateError({ 'api/v1/g.ts': GROUP_INFO, 'api/v1/foo.ts': version(false), 'api/v2/g.ts': GROUP_INFO, 'api/v2/foo.ts': version(false) });
    assert.match(none.message, /^api\/v1\/foo\.ts:3:1: CRD for Foo\.example\.com has no storage version: mark one version's type \+kubebuilder:storageversion \(versions: v1, v2\)$/);
    const two = generateError({ 'api/v1/g.ts': GROUP_INFO, 'api/v1/foo.ts': version(true), 'api/v2/g.ts': GROUP_INFO, 'api/v2/foo.ts': version(true) });
    assert.match(two.message, /^api\/v2\/foo\.ts:4:1: CRD for Foo\.example\.com has more than one storage version: v1, v2$/);
  });

  it('types that other interfaces in the same files use are not checked unless a kind reaches them', () => {
    const files = kind('export interface FooSpec { a?: string }\nexport interface Handler { run(): void; any: any }');
    const dir = writeProject(files);
    assert.equal(crdOutputs(loadProject(['api/**/*.ts'], dir), { outputDir: 'o' }).files.length, 1);
  });
});
