/**
 * The per-user certificate cache of in-memory servers: made private (0700 /
 * 0600) on first use, reused by later starts (same CA and certificate, a new
 * admin token), and never trusted when others could have read or written it.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startApiServer } from '../server.js';
import { cachedServingMaterial, defaultServingCacheDir, verifiedDigest, type VerifiedFacts } from './serving-cache.js';

const HOSTS = {
  dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
  ipAddresses: ['127.0.0.1', '::1', '10.96.0.1'],
};

/** GET /api verified against `caPem` with a bearer token; the status code. */
function getApi(url: string, caPem: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get(`${url}/api`, { ca: caPem, agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

describe('certificate cache of in-memory servers', () => {
  let base: string;
  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'operant-cert-cache-'));
  });
  after(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('is $XDG_CACHE_HOME/operant/pki, else ~/.cache/operant/pki', () => {
    assert.equal(defaultServingCacheDir({ XDG_CACHE_HOME: '/x/cache' }), '/x/cache/operant/pki');
    assert.match(defaultServingCacheDir({}), /\/\.cache\/operant\/pki$/);
    // A relative XDG_CACHE_HOME is invalid by the XDG spec, and ignored.
    assert.match(defaultServingCacheDir({ XDG_CACHE_HOME: 'rel' }), /\/\.cache\/operant\/pki$/);
  });

  it('is made private on first start and reused by the next, with a new admin token', async () => {
    const dir = join(base, 'reuse', 'pki');
    const first = await startApiServer({ port: 0, servingCacheDir: dir });
    const second = await startApiServer({ port: 0, servingCacheDir: dir });
    try {
      assert.equal((await stat(dir)).mode & 0o777, 0o700);
      assert.equal((await stat(join(dir, 'serving.json'))).mode & 0o777, 0o600);
      assert.equal(second.caPem, first.caPem);
      assert.notEqual(second.adminToken, first.adminToken);
      // The second server serves the cached certificate, trusted through the kubeconfig's CA.
      assert.equal(await getApi(second.url, second.caPem, second.adminToken), 200);
      assert.equal(await getApi(second.url, second.caPem, first.adminToken), 401);
      const cached = JSON.parse(await readFile(join(dir, 'serving.json'), 'utf8')) as { serving: { certPem: string } };
      const cert = new X509Certificate(cached.serving.certPem);
      // The SANs are exactly those of a certificate made at start.
      assert.equal(cert.subjectAltName, 'DNS:localhost, DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster.local, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:10.96.0.1');
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it('keeps the CA but issues a new certificate for other names', async () => {
    const dir = join(base, 'hosts');
    const warnings: string[] = [];
    const a = await cachedServingMaterial(dir, HOSTS, (w) => warnings.push(w));
    const b = await cachedServingMaterial(dir, { ...HOSTS, ipAddresses: [...HOSTS.ipAddresses, '10.1.2.3'] }, (w) => warnings.push(w));
    assert.equal(b.ca.certPem, a.ca.certPem);
    assert.notEqual(b.serving.certPem, a.serving.certPem);
    assert.ok(new X509Certificate(b.serving.certPem).checkIP('10.1.2.3'));
    // Back to the first names: a certificate covering more than asked is not reused.
    const c = await cachedServingMaterial(dir, HOSTS, (w) => warnings.push(w));
    assert.equal(new X509Certificate(c.serving.certPem).checkIP('10.1.2.3'), undefined);
    assert.deepEqual(warnings, []);
  });

  describe('the record of what was checked', () => {
    type CacheFile = { ca: { certPem: string; keyPem: string }; serving: { certPem: string; keyPem: string }; verified?: VerifiedFacts };
    const read = async (dir: string): Promise<CacheFile> => JSON.parse(await readFile(join(dir, 'serving.json'), 'utf8')) as CacheFile;
    const write = (dir: string, file: CacheFile): Promise<void> => writeFile(join(dir, 'serving.json'), JSON.stringify(file), { mode: 0o600 });
    const noWarning = (w: string): never => assert.fail(`no warning expected: ${w}`);

    it('is written with the pair: the names it covers, the expiry dates and their digest', async () => {
      const dir = join(base, 'record');
      const made = await cachedServingMaterial(dir, HOSTS, noWarning);
      const { verified, ...pair } = await read(dir);
      assert.ok(verified);
      assert.deepEqual([verified.dnsNames, verified.ipAddresses], [HOSTS.dnsNames, HOSTS.ipAddresses]);
      assert.equal(verified.notAfter, new Date(new X509Certificate(made.serving.certPem).validTo).getTime());
      assert.equal(verified.caNotAfter, new Date(new X509Certificate(made.ca.certPem).validTo).getTime());
      assert.equal(verified.digest, verifiedDigest(pair, verified));
    });

    it('changed since (or missing, as the previous format wrote it): the pair is checked in full, kept and recorded again', async () => {
      const dir = join(base, 'record-changed');
      const made = await cachedServingMaterial(dir, HOSTS, noWarning);
      const file = await read(dir);
      const good = file.verified!;
      for (const changed of [{ ...file, verified: { ...good, dnsNames: [...good.dnsNames, 'elsewhere'] } }, { ca: file.ca, serving: file.serving }]) {
        await write(dir, changed);
        const again = await cachedServingMaterial(dir, HOSTS, noWarning);
        assert.deepEqual([again.ca, again.serving], [made.ca, made.serving]);
        assert.deepEqual((await read(dir)).verified, good);
      }
    });

    it('changed since, with a certificate that no longer serves: a new one from the same CA', async () => {
      const dir = join(base, 'record-bad-cert');
      const made = await cachedServingMaterial(dir, HOSTS, noWarning);
      const other = await cachedServingMaterial(join(base, 'record-other'), HOSTS, noWarning);
      const file = await read(dir);
      // Another CA's certificate and key, under the record of the first: the digest no longer matches.
      await write(dir, { ...file, serving: other.serving });
      const again = await cachedServingMaterial(dir, HOSTS, noWarning);
      assert.equal(again.ca.certPem, made.ca.certPem);
      assert.notEqual(again.serving.certPem, made.serving.certPem);
      assert.notEqual(again.serving.certPem, other.serving.certPem);
      assert.ok(new X509Certificate(again.serving.certPem).checkIssued(new X509Certificate(made.ca.certPem)));
    });

    it('saying the certificate is near expiry: a new one from the same CA', async () => {
      const dir = join(base, 'record-expiry');
      const made = await cachedServingMaterial(dir, HOSTS, noWarning);
      const { verified, ...pair } = await read(dir);
      const facts = { ...verified!, notAfter: Date.now() + 24 * 60 * 60 * 1000 };
      await write(dir, { ...pair, verified: { ...facts, digest: verifiedDigest(pair, facts) } });
      const again = await cachedServingMaterial(dir, HOSTS, noWarning);
      assert.equal(again.ca.certPem, made.ca.certPem);
      assert.notEqual(again.serving.certPem, made.serving.certPem);
    });
  });

  it('replaces a file others could read, with a warning', async () => {
    const dir = join(base, 'open');
    const first = await cachedServingMaterial(dir, HOSTS, () => assert.fail('no warning expected'));
    await chmod(join(dir, 'serving.json'), 0o644);
    const warnings: string[] = [];
    const next = await cachedServingMaterial(dir, HOSTS, (w) => warnings.push(w));
    assert.notEqual(next.ca.certPem, first.ca.certPem);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /serving\.json had permission 0644, so others may know its CA key; replaced/);
    assert.equal((await stat(join(dir, 'serving.json'))).mode & 0o777, 0o600);
  });

  it('a cache directory that cannot be created: the start goes on with certificates of its own, and a warning saying why', async () => {
    // Before: Node's recursive mkdir looped forever here (the parent exists, the child's mkdir says ENOENT), freezing the start.
    const warnings: string[] = [];
    const material = await cachedServingMaterial('/proc/operant-cache/pki', HOSTS, (w) => warnings.push(w));
    assert.ok(material.ca.certPem.includes('BEGIN CERTIFICATE'));
    assert.deepEqual(warnings, ['cannot use the certificate cache /proc/operant-cache/pki: cannot create /proc/operant-cache: no such file or directory; certificates are made for this start only']);
  });

  it('makes an open directory private, with a warning', async () => {
    const dir = join(base, 'open-dir');
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    const warnings: string[] = [];
    await cachedServingMaterial(dir, HOSTS, (w) => warnings.push(w));
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.deepEqual(warnings, [`certificate cache ${dir} had permission 0755; set to 0700 so that other users cannot read its CA key`]);
  });

  it('replaces a corrupt file or a symbolic link, with a warning', async () => {
    const dir = join(base, 'corrupt');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'serving.json'), '{"ca": {"certPem": "nonsense", "keyPem": "x"}, "serving": {}}', { mode: 0o600 });
    const warnings: string[] = [];
    const material = await cachedServingMaterial(dir, HOSTS, (w) => warnings.push(w));
    assert.match(warnings[0], /serving\.json is not a CA and certificate this server wrote; replaced/);
    const reread = JSON.parse(await readFile(join(dir, 'serving.json'), 'utf8')) as { ca: { certPem: string } };
    assert.equal(reread.ca.certPem, material.ca.certPem);

    const target = join(base, 'elsewhere.json');
    await writeFile(target, await readFile(join(dir, 'serving.json')), { mode: 0o600 });
    await rm(join(dir, 'serving.json'));
    await symlink(target, join(dir, 'serving.json'));
    warnings.length = 0;
    await cachedServingMaterial(dir, HOSTS, (w) => warnings.push(w));
    assert.match(warnings[0], /cannot read the certificate cache .*serving\.json: .*ELOOP.*; replaced/);
    assert.ok(!(await stat(join(dir, 'serving.json')).then((s) => s.isSymbolicLink())));
  });

  it('replaces a file another user owns, and refuses a directory another user owns', { skip: process.getuid?.() !== 0 && 'changing owners needs root' }, async () => {
    const dir = join(base, 'foreign');
    const first = await cachedServingMaterial(dir, HOSTS, () => assert.fail('no warning expected'));
    await chown(join(dir, 'serving.json'), 4242, 4242);
    const warnings: string[] = [];
    const next = await cachedServingMaterial(dir, HOSTS, (w) => warnings.push(w));
    assert.notEqual(next.ca.certPem, first.ca.certPem);
    assert.match(warnings[0], /serving\.json is owned by uid 4242, not by this user; replaced/);
    assert.equal((await stat(join(dir, 'serving.json'))).uid, 0);

    await chown(dir, 4242, 4242);
    warnings.length = 0;
    const made = await cachedServingMaterial(dir, HOSTS, (w) => warnings.push(w));
    assert.deepEqual(warnings, [`certificate cache ${dir} is owned by uid 4242, not by this user; certificates are made for this start only`]);
    assert.notEqual(made.ca.certPem, next.ca.certPem);
    // Nothing was written into the foreign directory.
    const kept = JSON.parse(await readFile(join(dir, 'serving.json'), 'utf8')) as { ca: { certPem: string } };
    assert.equal(kept.ca.certPem, next.ca.certPem);
  });
});
