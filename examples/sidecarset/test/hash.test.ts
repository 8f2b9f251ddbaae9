/**
 * The SidecarSet hashes, byte for byte Kruise's: the vectors of
 * pkg/control/sidecarcontrol/hash_test.go, and the Go encoding/json
 * behaviour the hash input depends on (quantities: apimachinery's canonicalQuantity).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SidecarSetSpec } from '../src/api/v1alpha1/sidecarset-types.js';
import { hashInput, safeEncode, sidecarSetHash, sidecarSetHashWithoutImage } from '../src/sidecarset/hash/hash.js';
import { goString, marshalGo } from '../src/sidecarset/hash/go-json.js';
import { containerGoStructs } from '../src/sidecarset/hash/container-go-fields.js';

const container1 = { name: 'container1', image: 'test-image' };
const onlyContainers: SidecarSetSpec = { containers: [container1] };
const withInit: SidecarSetSpec = { containers: [container1], initContainers: [container1] };
const withNativeSidecar: SidecarSetSpec = { containers: [container1], initContainers: [{ ...container1, restartPolicy: 'Always' }] };

describe('sidecarSetHash (hash_test.go TestSidecarSetHash)', () => {
  it('renders the test vector as Go does', () => {
    assert.equal(hashInput(onlyContainers), '{"containers":[{"name":"container1","image":"test-image","resources":{},"upgradeStrategy":{},"shareVolumePolicy":{}}]}');
  });

  it('case "containers"', () => {
    assert.equal(sidecarSetHash(onlyContainers), 'w26c4x8fz245642fdv499b464248f974xddx4x55z5dw55bc6x66464fxz77dc78');
  });

  it('case "containers and initContainers": plain init containers do not count', () => {
    assert.equal(sidecarSetHash(withInit), 'w26c4x8fz245642fdv499b464248f974xddx4x55z5dw55bc6x66464fxz77dc78');
  });

  it('case "containers and initContainers with restartPolicy=Always": native sidecars count', () => {
    assert.equal(sidecarSetHash(withNativeSidecar), '4xwx4d4844vd4v9x79wb4xbxf4xb29475cc4446v8cz2c2f2f5c5bw448vd42z8w');
  });

  it('changes with the image', () => {
    assert.notEqual(sidecarSetHash({ containers: [{ ...container1, image: 'new-image' }] }), sidecarSetHash(onlyContainers));
  });
});

describe('sidecarSetHashWithoutImage (hash_test.go TestSidecarSetHashWithoutImage)', () => {
  it('case "containers and initContainers"', () => {
    assert.equal(sidecarSetHashWithoutImage(withInit), '8wzddb4dvv9c6x8zdc77z4z75987424f457dfv6724ddw6zbdx467wz5x24fc759');
  });

  it('case "containers and initContainers with restartPolicy=Always"', () => {
    assert.equal(sidecarSetHashWithoutImage(withNativeSidecar), '5725fw8bwbx249bw57v5892c847dzf48bww9zb7c86xb95264fdz26654847b2c8');
  });

  it('ignores a change of image only', () => {
    assert.equal(sidecarSetHashWithoutImage({ containers: [{ ...container1, image: 'new-image' }] }), sidecarSetHashWithoutImage(onlyContainers));
  });
});

describe('the hash input follows Go encoding/json', () => {
  it('writes Container fields in Go declaration order whatever the JSON order, and drops fields Go does not know', () => {
    const spec: SidecarSetSpec = {
      containers: [
        {
          tty: true,
          imagePullPolicy: 'IfNotPresent',
          env: [{ value: 'v', name: 'A' }],
          name: 'c',
          podInjectPolicy: 'BeforeAppContainer',
          ...({ notAField: 1 } as object),
        },
      ],
    };
    assert.equal(
      hashInput(spec),
      '{"containers":[{"name":"c","env":[{"name":"A","value":"v"}],"resources":{},"imagePullPolicy":"IfNotPresent","tty":true,"podInjectPolicy":"BeforeAppContainer","upgradeStrategy":{},"shareVolumePolicy":{}}]}',
    );
  });

  it('fills absent non-omitempty fields with zero values, keeps set pointers, promotes embedded structs', () => {
    const probe = { httpGet: { path: '/healthz' }, grpc: undefined, terminationGracePeriodSeconds: 0 };
    assert.equal(marshalGo(probe, 'Probe', containerGoStructs), '{"httpGet":{"path":"/healthz","port":0},"terminationGracePeriodSeconds":0}');
    assert.equal(marshalGo({ containerPort: 80 }, 'ContainerPort', containerGoStructs), '{"containerPort":80}');
    assert.equal(marshalGo({}, 'ContainerPort', containerGoStructs), '{"containerPort":0}');
    assert.equal(marshalGo({ resourceFieldRef: { resource: 'limits.cpu' } }, 'EnvVarSource', containerGoStructs), '{"resourceFieldRef":{"resource":"limits.cpu","divisor":"0"}}');
  });

  it('sorts map keys, canonicalizes quantities, keeps int-or-string as given', () => {
    assert.equal(
      marshalGo({ requests: { memory: '1024Mi', cpu: '0.5' }, limits: { cpu: 1 } }, 'ResourceRequirements', containerGoStructs),
      '{"limits":{"cpu":"1"},"requests":{"cpu":"500m","memory":"1Gi"}}',
    );
    assert.equal(marshalGo({ port: 'http' }, 'TCPSocketAction', containerGoStructs), '{"port":"http"}');
    assert.equal(marshalGo({ port: 8080 }, 'TCPSocketAction', containerGoStructs), '{"port":8080}');
  });

  it('escapes <, >, & and the line separators as Go does', () => {
    assert.equal(goString('a<b>&c\u2028'), '"a\\u003cb\\u003e\\u0026c\\u2028"');
    assert.equal(goString('tab\tquote"'), '"tab\\tquote\\""');
  });

  it('writes null for absent lists without omitempty, as Go writes a nil slice', () => {
    assert.equal(hashInput({}), '{"containers":null}');
    assert.equal(hashInput({ containers: [] }), '{"containers":[]}');
  });

  it('safeEncode maps each character to the 27-letter alphabet', () => {
    assert.equal(safeEncode('0af'), '4v4'); // 48, 97, 102 mod 27 = 21, 16, 21
  });
});
