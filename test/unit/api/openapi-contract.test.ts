/**
 * The contract test's validator (test/helpers/openapi-contract.ts) on made-up responses: what it
 * accepts, what it refuses loudly, and the coverage report it writes.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContractViolation, OpenApiContract, recordPair, writeCoverageReport } from '../../helpers/openapi-contract.js';

const contract = new OpenApiContract();
const base = 'http://127.0.0.1:4000';
const hex = '0'.repeat(31);

const account = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'openapi.json'), 'utf8')) as {
  components: { schemas: { Account: { examples: unknown[] } } };
};
const accountExample = account.components.schemas.Account.examples[0];

function response(
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = { 'x-request-id': 'r1', 'content-type': 'application/json' },
) {
  return { method, url: `${base}${path}`, status, headers: new Headers(headers), text: body === undefined ? '' : JSON.stringify(body) };
}

const envelope = (code: string, type = 'invalid_request_error') => ({ error: { type, code, message: 'm', request_id: 'r1' } });

describe('OpenApiContract.check', () => {
  it('accepts a documented answer and names its (route, status) pair', () => {
    expect(contract.check(response('GET', '/v1/account', 200, accountExample))).toBe('GET /v1/account 200');
    expect(contract.check(response('GET', `/v1/runs/run_${hex}1/observations?limit=2`, 409, envelope('run_not_completed', 'conflict_error')))).toBe(
      'GET /v1/runs/{run_id}/observations 409',
    );
  });

  it('refuses a body that breaks the schema, naming the field', () => {
    expect(() => contract.check(response('GET', '/v1/account', 200, { ...(accountExample as object), plan: 'platinum' }))).toThrow(
      /body\/plan must be equal to one of the allowed values/,
    );
  });

  it('refuses a status the operation does not document', () => {
    expect(() => contract.check(response('GET', '/v1/account', 202, accountExample))).toThrow(ContractViolation);
  });

  it('refuses an error code the route does not answer at that status', () => {
    expect(() => contract.check(response('GET', '/v1/scanners', 400, envelope('upload_not_found')))).toThrow(/allowed values/);
  });

  it('refuses an answer without the x-request-id header or as another content type', () => {
    expect(() => contract.check(response('GET', '/v1/account', 200, accountExample, { 'content-type': 'application/json' }))).toThrow(/x-request-id/);
    expect(() => contract.check(response('GET', '/v1/account', 200, accountExample, { 'x-request-id': 'r1', 'content-type': 'text/html' }))).toThrow(
      /content-type/,
    );
  });

  it('lets unknown routes answer only the 404 not_found envelope', () => {
    expect(contract.check(response('DELETE', '/v1/account', 404, envelope('not_found', 'not_found_error')))).toBe('unknown route 404');
    expect(() => contract.check(response('GET', '/v1/secret-admin', 200, { ok: true }))).toThrow(/no operation of the document/);
    expect(() => contract.check(response('GET', '/v1/nothing', 404, envelope('validation_failed')))).toThrow(/not_found/);
  });
});

describe('the coverage report', () => {
  it('counts the documented pairs the run received, once each', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-coverage-'));
    const log = join(dir, 'pairs.ndjson');
    recordPair('GET /v1/account 200', log);
    recordPair('GET /v1/account 200', log);
    recordPair('unknown route 404', log);
    const summary = writeCoverageReport(contract, log, join(dir, 'report.txt'));
    expect(summary.covered).toEqual(['GET /v1/account 200']);
    expect(summary.documented).toBe(contract.documentedPairs().length);
    const report = readFileSync(join(dir, 'report.txt'), 'utf8');
    expect(report).toMatch(/^OpenAPI contract coverage: 1 of \d+ documented/);
    expect(report).toContain('Unknown routes were also exercised');
  });
});
