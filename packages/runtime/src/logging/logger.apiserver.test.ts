/**
 * The pino logger: JSON lines, the pretty format, the environment settings,
 * and the per-reconcile fields of a real controller against the embedded server.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMap } from '../builtins.js';
import { SharedInformerFactory } from '../cache/shared-informers.js';
import { controllerBuilder } from '../controller/builder.js';
import { useApiServer } from '../testdata/api-server.js';
import { LogLines } from '../testdata/log-lines.js';
import { createLogger } from './logger.js';

describe('createLogger', () => {
  test('writes one JSON object per line with pino levels, fields and serialized errors', () => {
    const out = new LogLines();
    const log = createLogger({ destination: out, level: 'debug', format: 'json' });
    log.child({ controller: 'web' }).warn({ err: new Error('boom'), attempt: 2 }, 'reconcile failed');
    log.debug({}, 'details');
    const [first, second] = out.text.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(first?.level, 40);
    assert.equal(first?.msg, 'reconcile failed');
    assert.equal(first?.controller, 'web');
    assert.equal(first?.attempt, 2);
    assert.equal((first?.err as { message: string }).message, 'boom');
    assert.match((first?.err as { stack: string }).stack, /Error: boom/);
    assert.equal(second?.level, 20);
  });

  test('drops lines below the level', () => {
    const out = new LogLines();
    createLogger({ destination: out, level: 'warn', format: 'json' }).info({}, 'hidden');
    assert.deepEqual(out.text, []);
  });

  test('the pretty format writes readable lines, not JSON', () => {
    const out = new LogLines();
    createLogger({ destination: out, level: 'info', format: 'pretty' }).info({ namespace: 'web' }, 'reconciled');
    const text = out.text.join('\n');
    assert.match(text, /INFO.*reconciled/);
    assert.match(text, /namespace: "web"/);
    assert.throws(() => JSON.parse(out.text[0] ?? ''));
  });

  test('reads its level and format from the environment, and refuses unknown values', () => {
    const saved = process.env.OPERANT_LOG_LEVEL;
    try {
      process.env.OPERANT_LOG_LEVEL = 'error';
      const out = new LogLines();
      createLogger({ destination: out, format: 'json' }).warn({}, 'hidden');
      assert.deepEqual(out.text, []);
      process.env.OPERANT_LOG_LEVEL = 'loud';
      assert.throws(() => createLogger({ destination: out }), /OPERANT_LOG_LEVEL=loud is not one of trace, debug, info, warn, error, fatal, silent/);
    } finally {
      if (saved === undefined) delete process.env.OPERANT_LOG_LEVEL;
      else process.env.OPERANT_LOG_LEVEL = saved;
    }
  });
});

describe('a reconcile logs through a child logger', () => {
  const api = useApiServer();

  test('carrying controller, group, kind, namespace, name and reconcile id', async () => {
    const out = new LogLines();
    const logger = createLogger({ destination: out, level: 'debug', format: 'json' });
    const informers = new SharedInformerFactory(api.client, { logger });
    const ids: string[] = [];
    const controller = controllerBuilder('configmap-logger', { client: api.client, informers, logger })
      .for(ConfigMap)
      .reconcile((req, { log, reconcileId }) => {
        if (req.name === 'logged') {
          ids.push(reconcileId);
          log.info({ step: 'done' }, 'reconciled the config map');
        }
      });
    const stop = new AbortController();
    informers.startAll(stop.signal);
    const running = controller.start(stop.signal);
    await api.client.create(ConfigMap, { metadata: { name: 'logged', namespace: 'default' } });
    const line = JSON.parse(await out.next((l) => l.includes('reconciled the config map'))) as Record<string, unknown>;
    stop.abort();
    await running;
    await informers.stopAll();
    assert.deepEqual(
      { ...line, time: undefined },
      {
        level: 30,
        time: undefined,
        msg: 'reconciled the config map',
        controller: 'configmap-logger',
        controllerGroup: '',
        controllerKind: 'ConfigMap',
        namespace: 'default',
        name: 'logged',
        reconcileID: ids[0],
        step: 'done',
      },
    );
    assert.deepEqual(out.withRepeatedKeys(), [], 'no line repeats a key');
  });
});
