/**
 * The two log formats of src/log.ts. The pretty one is pino-pretty's formatter run in the logging
 * thread (the single executable cannot start pino-pretty's worker-thread transport): same layout as
 * the transport gave, secrets redacted before formatting, errors with their stack, every line written
 * before `log.info()` returns (nothing is lost when the process exits right after).
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLogger } from './log.js';

function capture(): { write(line: string): void; text(): string } {
  const chunks: string[] = [];
  return { write: (line) => void chunks.push(line), text: () => stripVTControlCharacters(chunks.join('')) };
}

describe('log format', () => {
  it('pretty: time, level and message on one line, fields below, secrets redacted, written synchronously', () => {
    const out = capture();
    const log = createLogger({ level: 'info', format: 'pretty', destination: out, secretHeaders: ['X-Custom-Key'] });
    log.info({ node: 'a', headers: { authorization: 'Bearer hunter2', 'X-Custom-Key': 'k3y' } }, 'node up');
    log.debug('not at this level');
    const text = out.text();
    expect(text).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d{4}\] INFO: node up\n/);
    expect(text).toContain('    service: "avax-exporter"\n');
    expect(text).toContain('    node: "a"\n');
    expect(text).toContain('"authorization": "<secret>"');
    expect(text).toContain('"X-Custom-Key": "<secret>"');
    expect(text).not.toMatch(/hunter2|k3y|not at this level/);
  });

  it('pretty: an error is printed with its type, message and stack', () => {
    const out = capture();
    createLogger({ level: 'info', format: 'pretty', destination: out }).error({ err: new TypeError('bad thing') }, 'poll failed');
    const text = out.text();
    expect(text).toMatch(/\] ERROR: poll failed\n/);
    expect(text).toContain(`"type": "TypeError"`);
    expect(text).toContain(`"message": "bad thing"`);
    expect(text).toMatch(/"stack":\s*\n\s*TypeError: bad thing\n\s*at /);
  });

  it('json: one JSON object per line with ISO time, numeric level and the service name', () => {
    const out = capture();
    createLogger({ level: 'info', format: 'json', destination: out }).warn({ apiKey: 'secret-key' }, 'careful');
    const line = JSON.parse(out.text()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 40, service: 'avax-exporter', msg: 'careful', apiKey: '<secret>' });
    expect(line['time']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
