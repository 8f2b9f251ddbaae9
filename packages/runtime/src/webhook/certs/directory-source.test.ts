/**
 * The directory source on a real file system: first read and its errors,
 * rotations seen through the directory watch (in-place writes and the
 * kubelet's `..data` symlink swap) and through polling alone, half-written
 * pairs ignored, and start/stop.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogFields } from '../../cache/logger.js';
import type { ControllerLogger } from '../../controller/logger.js';
import type { CertificateSource, ServingCertificate } from '../contracts.js';
import { DirectoryCertificateSource, directoryCertificateSource } from './directory-source.js';
import { generateServingCertificate, type CertificateAuthority } from './generate.js';
import { CertificateError, checkPair } from './pair.js';

let root: string;
let ca: CertificateAuthority;
let dirCount = 0;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'operant-cert-dir-'));
  const first = await generateServingCertificate();
  ca = { cert: first.caPem, key: first.caKey };
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

async function leaf(): Promise<ServingCertificate> {
  const { cert, key } = await generateServingCertificate({ ca });
  return { cert, key };
}

async function newDir(pair?: ServingCertificate): Promise<string> {
  const dir = join(root, `d${++dirCount}`);
  await mkdir(dir);
  if (pair) {
    await writeFile(join(dir, 'tls.key'), pair.key);
    await writeFile(join(dir, 'tls.crt'), pair.cert);
  }
  return dir;
}

/** Resolves with the next pair the source announces. */
function nextChange(source: CertificateSource): Promise<ServingCertificate> {
  return new Promise((resolve) => {
    const off = source.onChange((pair) => {
      off();
      resolve(pair);
    });
  });
}

/** A logger that records lines and lets a test await one at a level. */
function recordingLogger(): ControllerLogger & { lines: Array<{ level: string; msg: string; fields: LogFields }>; next(level: string): Promise<string> } {
  const lines: Array<{ level: string; msg: string; fields: LogFields }> = [];
  const waiters: Array<{ level: string; resolve: (msg: string) => void }> = [];
  const at = (level: string) => (fields: LogFields, msg: string) => {
    lines.push({ level, msg, fields });
    for (const w of waiters.filter((w) => w.level === level)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(msg);
    }
  };
  return {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    next: (level) => new Promise((resolve) => waiters.push({ level, resolve })),
  };
}

describe('directoryCertificateSource: reading', () => {
  test('reads the pair and the CA file; current() serves it', async () => {
    const pair = await leaf();
    const dir = await newDir(pair);
    await writeFile(join(dir, 'ca.crt'), ca.cert);
    const source = await directoryCertificateSource(dir, { caFile: 'ca.crt' });
    assert.deepEqual(source.current(), pair);
    assert.equal(source.caPem, ca.cert);
    assert.ok(source.notAfter.getTime() > Date.now());
    const custom = await newDir();
    await writeFile(join(custom, 'cert.pem'), pair.cert);
    await writeFile(join(custom, 'key.pem'), pair.key);
    const named = await directoryCertificateSource(custom, { certFile: 'cert.pem', keyFile: 'key.pem', caFile: 'ca.crt' });
    assert.deepEqual(named.current(), pair);
    assert.equal(named.caPem, undefined, 'an absent CA file is not an error');
  });

  test('a missing directory is an error naming it, unless optional', async () => {
    const missing = join(root, 'not-mounted');
    await assert.rejects(directoryCertificateSource(missing), (e: unknown) => {
      assert.ok(e instanceof CertificateError);
      assert.equal(e.message, `the certificate directory ${missing} does not exist`);
      assert.deepEqual(e.files, [missing]);
      return true;
    });
    assert.equal(await directoryCertificateSource(missing, { optional: true }), undefined);
    // Optional covers only absence: a mounted but broken pair is still an error.
    const empty = await newDir();
    await assert.rejects(directoryCertificateSource(empty, { optional: true }), new RegExp(`cannot read ${join(empty, 'tls.crt')}: no such file`));
  });

  test('malformed or mismatched files fail with errors naming the files', async () => {
    const a = await leaf();
    const b = await leaf();
    const badCert = await newDir({ cert: 'not a certificate', key: a.key });
    await assert.rejects(directoryCertificateSource(badCert), {
      name: 'CertificateError',
      message: `${join(badCert, 'tls.crt')} does not contain a PEM certificate`,
    });
    const truncated = await newDir({ cert: a.cert.slice(0, 120) + '\n-----END CERTIFICATE-----\n', key: a.key });
    await assert.rejects(directoryCertificateSource(truncated), new RegExp(`^CertificateError: ${join(truncated, 'tls.crt')} does not contain a valid PEM certificate`));
    const badKey = await newDir({ cert: a.cert, key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' });
    await assert.rejects(directoryCertificateSource(badKey), (e: unknown) => {
      assert.ok(e instanceof CertificateError);
      assert.match(e.message, new RegExp(`^${join(badKey, 'tls.key')} does not contain a valid PEM private key`));
      assert.deepEqual(e.files, [join(badKey, 'tls.key')]);
      return true;
    });
    const mismatched = await newDir({ cert: a.cert, key: b.key });
    await assert.rejects(directoryCertificateSource(mismatched), {
      message: `the private key in ${join(mismatched, 'tls.key')} does not match the certificate in ${join(mismatched, 'tls.crt')}`,
    });
  });
});

describe('directoryCertificateSource: following changes', () => {
  test('an in-place rotation is taken once key and certificate match; the half-written state is ignored', async () => {
    const a = await leaf();
    const b = await leaf();
    const dir = await newDir(a);
    const source = await directoryCertificateSource(dir, { pollIntervalMs: 0, logger: recordingLogger() });
    const announced: ServingCertificate[] = [];
    source.onChange((pair) => announced.push(pair));
    const ac = new AbortController();
    const running = source.start(ac.signal);
    try {
      await writeFile(join(dir, 'tls.key'), b.key);
      assert.equal(await source.reload(), false, 'the new key with the old certificate is not a pair');
      assert.deepEqual(source.current(), a);
      const changed = nextChange(source);
      await writeFile(join(dir, 'tls.crt'), b.cert);
      assert.deepEqual(await changed, b);
      assert.deepEqual(source.current(), b);
      assert.equal(await source.reload(), false, 'nothing new to take');
      assert.deepEqual(announced, [b]);
    } finally {
      ac.abort();
      await running;
    }
  });

  test("the kubelet's atomic `..data` symlink swap is seen by the directory watch alone", async () => {
    const a = await leaf();
    const b = await leaf();
    const dir = await newDir();
    // The layout of a Secret volume: timestamped directories, `..data` pointing at the current one.
    const put = async (name: string, pair: ServingCertificate): Promise<void> => {
      await mkdir(join(dir, name));
      await writeFile(join(dir, name, 'tls.crt'), pair.cert);
      await writeFile(join(dir, name, 'tls.key'), pair.key);
    };
    await put('..2025_01_01_00_00_00.1', a);
    await symlink('..2025_01_01_00_00_00.1', join(dir, '..data'));
    await symlink('..data/tls.crt', join(dir, 'tls.crt'));
    await symlink('..data/tls.key', join(dir, 'tls.key'));
    const source = await directoryCertificateSource(dir, { pollIntervalMs: 0 });
    assert.deepEqual(source.current(), a);
    const ac = new AbortController();
    const running = source.start(ac.signal);
    try {
      const changed = nextChange(source);
      await put('..2025_01_02_00_00_00.2', b);
      await symlink('..2025_01_02_00_00_00.2', join(dir, '..data_tmp'));
      await rename(join(dir, '..data_tmp'), join(dir, '..data'));
      assert.deepEqual(await changed, b);
    } finally {
      ac.abort();
      await running;
    }
  });

  test('polling alone (no watch) picks up a rotation, and warns once about a pair that stays broken', async () => {
    const a = await leaf();
    const b = await leaf();
    const c = await leaf();
    const dir = await newDir(a);
    const log = recordingLogger();
    const source = await directoryCertificateSource(dir, { watch: false, pollIntervalMs: 20, logger: log });
    const ac = new AbortController();
    const running = source.start(ac.signal);
    try {
      const changed = nextChange(source);
      await writeFile(join(dir, 'tls.key'), b.key);
      await writeFile(join(dir, 'tls.crt'), b.cert);
      assert.deepEqual(await changed, b);

      const warned = log.next('warn');
      // Renamed into place, so that the poll sees a whole key that does not match, never a half-written file.
      await writeFile(join(dir, 'tls.key.tmp'), c.key);
      await rename(join(dir, 'tls.key.tmp'), join(dir, 'tls.key'));
      assert.equal(await warned, 'cannot load the certificate files; keeping the previous pair');
      assert.deepEqual(source.current(), b);
      const warning = log.lines.find((l) => l.level === 'warn');
      assert.match(String((warning?.fields.err as Error).message), /does not match the certificate/);

      const fixed = nextChange(source);
      await writeFile(join(dir, 'tls.crt.tmp'), c.cert);
      await rename(join(dir, 'tls.crt.tmp'), join(dir, 'tls.crt'));
      assert.deepEqual(await fixed, c);
      assert.equal(log.lines.filter((l) => l.level === 'warn').length, 1, 'the broken pair is reported once, not on every poll');
      assert.ok(log.lines.some((l) => l.level === 'info' && l.msg === 'updated serving certificate'));
    } finally {
      ac.abort();
      await running;
    }
  });

  test('start ends when the signal aborts and cannot run twice at once; listeners unsubscribe', async () => {
    const a = await leaf();
    const source: DirectoryCertificateSource = await directoryCertificateSource(await newDir(a), { logger: recordingLogger() });
    const ac = new AbortController();
    const running = source.start(ac.signal);
    await assert.rejects(source.start(new AbortController().signal), /already started/);
    ac.abort();
    await running;
    // Once stopped it can start again (e.g. a manager restarted in a test).
    const again = new AbortController();
    const second = source.start(again.signal);
    again.abort();
    await second;
    const calls: ServingCertificate[] = [];
    const off = source.onChange((p) => calls.push(p));
    off();
    await writeFile(join(source.dir, 'tls.key'), (await leaf()).key);
    assert.equal(await source.reload(), false);
    assert.deepEqual(calls, []);
    assert.ok(checkPair(source.current().cert, source.current().key, { cert: 'c', key: 'k' }));
  });
});
