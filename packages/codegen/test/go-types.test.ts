/**
 * Checks the committed `src/k8s/go-types.json` (written by
 * `scripts/extract-go-types.ts` from the kubernetes Go sources, which are not
 * available in CI) against facts known from those sources, and that it is
 * closed: every `named` reference has a declaration in the file.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadGoTypes, type GoField, type GoTypeDecl, type GoTypeExpr } from '../src/k8s/go-types.js';

const CORE = 'k8s.io/api/core/v1';
const BATCH = 'k8s.io/api/batch/v1';
const META = 'k8s.io/apimachinery/pkg/apis/meta/v1';
const RESOURCE = 'k8s.io/apimachinery/pkg/api/resource';
const INTSTR = 'k8s.io/apimachinery/pkg/util/intstr';
const RUNTIME = 'k8s.io/apimachinery/pkg/runtime';

const index = loadGoTypes();

function decl(pkg: string, name: string): GoTypeDecl {
  const d = index.packages[pkg]?.[name];
  assert.ok(d, `${pkg}.${name} is declared`);
  return d;
}

function fields(pkg: string, name: string): GoField[] {
  const t = decl(pkg, name).type;
  assert.equal(t.kind, 'struct', `${pkg}.${name} is a struct`);
  return t.kind === 'struct' ? t.fields : [];
}

function field(pkg: string, type: string, name: string): GoField {
  const f = fields(pkg, type).find((x) => x.name === name);
  assert.ok(f, `${pkg}.${type} has field ${name}`);
  return f;
}

const named = (pkg: string, name: string): GoTypeExpr => ({ kind: 'named', pkg, name });

describe('go-types.json', () => {
  it('records the refs it was read at and loads once', () => {
    assert.deepEqual(index.source, { api: 'v0.36.0', apimachinery: 'v0.36.0' });
    assert.equal(loadGoTypes(), index);
  });

  it('has the root packages, with sorted package and type keys', () => {
    for (const pkg of [CORE, 'k8s.io/api/apps/v1', BATCH, 'k8s.io/api/networking/v1', 'k8s.io/api/rbac/v1', 'k8s.io/api/policy/v1', META]) {
      assert.ok(index.packages[pkg], pkg);
    }
    const pkgs = Object.keys(index.packages);
    assert.deepEqual(pkgs, [...pkgs].sort());
    for (const types of Object.values(index.packages)) {
      const names = Object.keys(types);
      assert.deepEqual(names, [...names].sort());
    }
  });

  it('batch/v1 JobTemplateSpec: metadata (embedded ObjectMeta with a json name, as in the Go source) and spec', () => {
    const [metadata, spec, ...rest] = fields(BATCH, 'JobTemplateSpec');
    assert.deepEqual(rest, []);
    assert.equal(metadata?.name, 'ObjectMeta');
    assert.equal(metadata.embedded, true);
    assert.equal(metadata.tag, 'metadata,omitempty');
    assert.deepEqual(metadata.type, named(META, 'ObjectMeta'));
    assert.ok(metadata.doc.includes('+optional'));
    assert.equal(spec?.name, 'Spec');
    assert.equal(spec.embedded, false);
    assert.equal(spec.tag, 'spec,omitempty');
    assert.deepEqual(spec.type, named(BATCH, 'JobSpec'));
  });

  it('batch/v1 JobSpec has managedBy', () => {
    const f = field(BATCH, 'JobSpec', 'ManagedBy');
    assert.equal(f.tag, 'managedBy,omitempty');
    assert.deepEqual(f.type, { kind: 'pointer', elem: { kind: 'basic', name: 'string' } });
  });

  it('meta/v1 Condition keeps its marker lines raw and in order', () => {
    assert.deepEqual(fields(META, 'Condition').map((f) => f.tag), [
      'type', 'status', 'observedGeneration,omitempty', 'lastTransitionTime', 'reason', 'message',
    ]);
    const type = field(META, 'Condition', 'Type');
    assert.deepEqual(type.doc.filter((l) => l.startsWith('+')), [
      '+required',
      '+kubebuilder:validation:Required',
      '+kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`',
      '+kubebuilder:validation:MaxLength=316',
    ]);
    assert.equal(type.doc[0], 'type of condition in CamelCase or in foo.example.com/CamelCase.');
    assert.ok(field(META, 'Condition', 'Status').doc.includes('+kubebuilder:validation:Enum=True;False;Unknown'));
  });

  it('core/v1 PodSpec containers carries its list/patch markers', () => {
    const f = field(CORE, 'PodSpec', 'Containers');
    assert.equal(f.tag, 'containers');
    assert.deepEqual(f.type, { kind: 'slice', elem: named(CORE, 'Container') });
    assert.deepEqual(f.doc.slice(-4), ['+patchMergeKey=name', '+patchStrategy=merge', '+listType=map', '+listMapKey=name']);
  });

  it('core/v1 Container fields are in Go source order', () => {
    assert.deepEqual(fields(CORE, 'Container').slice(0, 5).map((f) => f.tag), [
      'name', 'image,omitempty', 'command,omitempty', 'args,omitempty', 'workingDir,omitempty',
    ]);
  });

  it('core/v1 Pod: inline TypeMeta; type markers in the separate comment group above its doc', () => {
    const [typeMeta] = fields(CORE, 'Pod');
    assert.deepEqual(typeMeta, { name: 'TypeMeta', embedded: true, tag: ',inline', doc: [], type: named(META, 'TypeMeta') });
    const pod = decl(CORE, 'Pod');
    assert.equal(pod.doc[0], 'Pod is a collection of containers that can run on a host. This resource is created');
    assert.ok(pod.extraMarkers.includes('+genclient'));
    assert.ok(pod.extraMarkers.includes('+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object'));
  });

  it('has the special types as plain declarations', () => {
    assert.deepEqual(decl(META, 'Time').type, {
      kind: 'struct',
      fields: [{ name: 'Time', embedded: true, tag: '', doc: [], type: named('time', 'Time') }],
    });
    assert.ok(decl(META, 'Time').doc.includes('+protobuf.as=Timestamp'));
    assert.deepEqual(fields(RESOURCE, 'Quantity').map((f) => [f.name, f.embedded]), [['i', false], ['d', false], ['s', false], ['Format', true]]);
    assert.deepEqual(fields(INTSTR, 'IntOrString').map((f) => [f.name, f.tag]), [['Type', ''], ['IntVal', ''], ['StrVal', '']]);
    assert.deepEqual(fields(RUNTIME, 'RawExtension').map((f) => [f.name, f.tag]), [['Raw', '-'], ['Object', '-']]);
    assert.deepEqual(field(RUNTIME, 'RawExtension', 'Raw').type, { kind: 'slice', elem: { kind: 'basic', name: 'byte' } });
    assert.equal(decl(CORE, 'ObjectReference').type.kind, 'struct');
  });

  it('is closed: every named reference is declared, except the standard library and inf.v0', () => {
    const unresolved = new Map<string, Set<string>>();
    const visit = (t: GoTypeExpr): void => {
      switch (t.kind) {
        case 'named':
          if (!index.packages[t.pkg]?.[t.name]) {
            if (!unresolved.has(t.pkg)) unresolved.set(t.pkg, new Set());
            unresolved.get(t.pkg)?.add(t.name);
          }
          return;
        case 'pointer': case 'slice': case 'array': visit(t.elem); return;
        case 'map': visit(t.key); visit(t.elem); return;
        case 'struct': for (const f of t.fields) visit(f.type); return;
        case 'basic': case 'interface': return;
      }
    };
    for (const types of Object.values(index.packages)) for (const d of Object.values(types)) visit(d.type);

    const found = Object.fromEntries([...unresolved].map(([pkg, names]) => [pkg, [...names].sort()]));
    assert.deepEqual(found, {
      time: ['Duration', 'Time'], // metav1.Duration, metav1.Time, metav1.MicroTime
      // Not standard library: resource.Quantity's unexported infDecAmount embeds *inf.Dec.
      // Outside the two repos, so it has no declaration here; Quantity is special-cased by generators anyway.
      'gopkg.in/inf.v0': ['Dec'],
    });
    for (const pkg of unresolved.keys()) {
      assert.ok(!pkg.split('/')[0]!.includes('.') || pkg === 'gopkg.in/inf.v0', `${pkg} is standard library`);
    }
  });
});
