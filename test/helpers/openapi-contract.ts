/**
 * The contract test's validator: a response the API gave, checked against openapi.json. The
 * (method, path) must be a documented operation (or an unknown route answering the documented
 * 404 envelope), the status one the operation documents, the required headers present, and a
 * JSON body valid against that status's schema (ajv, JSON Schema 2020-12, formats included).
 * Each checked (route, status) pair is recorded, so a run can report what it covered.
 *
 * No vitest here: unit tests drive it with made-up responses, the integration project through
 * test/helpers/api.ts (see openapi-contract-setup.ts).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { repoRoot } from './processes.js';

type Json = Record<string, unknown>;

export interface CheckedResponse {
  method: string;
  /** The request URL; only its path matters. */
  url: string;
  status: number;
  headers: Headers;
  /** The raw body text ('' when there is none). */
  text: string;
}

/** A (route, status) pair as reports show it: `GET /v1/runs/{run_id} 200`. */
export type Pair = string;

/** What the catch-all answers for any (method, path) the document does not list. */
export const UNKNOWN_ROUTE = 'unknown route';

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, Json>;
}

export const documentFile = join(repoRoot, 'openapi.json');
export const coverageLog = join(repoRoot, 'test-results', 'openapi-coverage.ndjson');
export const coverageReport = join(repoRoot, 'test-results', 'openapi-coverage.txt');

/** `#/components/...` as a reference into the document registered under `documentId`. */
function qualifyRefs(value: unknown, documentId: string): unknown {
  if (Array.isArray(value)) return value.map((item) => qualifyRefs(item, documentId));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string' && item.startsWith('#/') ? `${documentId}${item}` : qualifyRefs(item, documentId),
    ]),
  );
}

export class OpenApiContract {
  readonly document: Json & { paths: Record<string, Record<string, Json>>; components: Json };
  private readonly operations: Operation[];
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly documentId = 'https://media-scanner.invalid/openapi.json';

  constructor(document: unknown = JSON.parse(readFileSync(documentFile, 'utf8'))) {
    this.document = document as OpenApiContract['document'];
    // `type: ["string", "null"]` is how OpenAPI 3.1 says nullable: a union type, not a mistake.
    this.ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    // A CommonJS module: its plugin is `default` of what ESM imports.
    ajvFormats.default(this.ajv);
    // The schemas live where OpenAPI keeps them, under components/schemas of a document ajv knows by id.
    this.ajv.addKeyword('components');
    this.ajv.addSchema({ $id: this.documentId, components: { schemas: this.document.components.schemas } });
    this.operations = Object.entries(this.document.paths).flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${template.replaceAll('.', '\\.').replace(/\{[a-z_]+\}/g, '[^/]+')}$`),
        responses: (operation as { responses: Record<string, Json> }).responses,
      })),
    );
  }

  /** Every (route, status) pair the document lists. */
  documentedPairs(): Pair[] {
    return this.operations.flatMap((operation) => Object.keys(operation.responses).map((status) => `${operation.method} ${operation.template} ${status}`));
  }

  /** Throws ContractViolation when the response breaks the document; returns the pair it covered. */
  check(response: CheckedResponse): Pair {
    const path = new URL(response.url).pathname;
    const operation = this.operations.find((candidate) => candidate.method === response.method.toUpperCase() && candidate.pattern.test(path));
    const where = `${response.method} ${path} answered ${response.status}`;
    const fail = (problem: string): never => {
      throw new ContractViolation(`${where}, which breaks openapi.json: ${problem}\n${response.text.slice(0, 500)}`);
    };
    if (!operation) {
      // Only the catch-all may answer an undocumented (method, path), and only with 404 not_found.
      if (response.status !== 404) fail('no operation of the document has this method and path (a route missing from the document?)');
      this.validateJson(response, this.componentSchema('ErrorEnvelope'), fail);
      if ((JSON.parse(response.text) as { error: { code: string } }).error.code !== 'not_found') fail('an unknown route must answer not_found');
      return `${UNKNOWN_ROUTE} 404`;
    }
    const documented = operation.responses[String(response.status)];
    if (!documented) fail(`${operation.method} ${operation.template} documents ${Object.keys(operation.responses).join(', ')} only`);
    const answer = this.resolve(documented as Json);
    for (const [name, header] of Object.entries((answer.headers ?? {}) as Record<string, Json>)) {
      if (this.resolve(header).required === true && !response.headers.has(name)) fail(`the required header ${name} is missing`);
    }
    const content = answer.content as Record<string, { schema: Json }> | undefined;
    const schema = content?.['application/json']?.schema;
    if (schema) this.validateJson(response, schema, fail);
    else if (response.text) fail('the document says this response has no body');
    return `${operation.method} ${operation.template} ${response.status}`;
  }

  private resolve(value: Json): Json {
    const ref = value.$ref;
    if (typeof ref !== 'string') return value;
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], this.document);
    if (!target) throw new ContractViolation(`openapi.json: ${ref} resolves to nothing`);
    return target as Json;
  }

  private componentSchema(name: string): Json {
    return { $ref: `#/components/schemas/${name}` };
  }

  private validateJson(response: CheckedResponse, schema: Json, fail: (problem: string) => never): void {
    if (!/^application\/json\b/.test(response.headers.get('content-type') ?? ''))
      fail(`content-type is ${response.headers.get('content-type')}, not application/json`);
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      fail('the body is not JSON');
    }
    const problem = this.validateSchema(schema, body);
    if (problem) fail(problem);
  }

  /** Validates `value` against a named component schema; for unit tests of examples and presenters. */
  validateComponent(name: string, value: unknown): string | undefined {
    return this.validateSchema(this.componentSchema(name), value);
  }

  /** Validates `value` against any schema of the document (references resolve into it): the problems, or undefined. */
  validateSchema(schema: Json, value: unknown): string | undefined {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(qualifyRefs(schema, this.documentId) as Json);
      this.validators.set(key, validate);
    }
    return validate(value) ? undefined : this.ajv.errorsText(validate.errors, { separator: '\n  ', dataVar: 'body' });
  }
}

// ---- Coverage: every process of a run appends the pairs it saw; the global teardown reports them.

const seen = new Set<Pair>();

export function recordPair(pair: Pair, log = coverageLog): void {
  if (seen.has(pair)) return;
  seen.add(pair);
  mkdirSync(dirname(log), { recursive: true });
  // One short line per append: concurrent workers never interleave within it.
  appendFileSync(log, `${JSON.stringify(pair)}\n`);
}

export interface CoverageSummary {
  covered: Pair[];
  uncovered: Pair[];
  documented: number;
}

/** Writes openapi-coverage.txt from the pairs the run recorded; returns the figures. */
export function writeCoverageReport(contract = new OpenApiContract(), log = coverageLog, report = coverageReport): CoverageSummary {
  const recorded = new Set(
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Pair)
      : [],
  );
  const documented = contract.documentedPairs();
  const covered = documented.filter((pair) => recorded.has(pair));
  const uncovered = documented.filter((pair) => !recorded.has(pair));
  const unknownRoutes = recorded.has(`${UNKNOWN_ROUTE} 404`);
  const lines = [
    `OpenAPI contract coverage: ${covered.length} of ${documented.length} documented (route, status) pairs received by the integration suite, every response validated against openapi.json.`,
    unknownRoutes ? `Unknown routes were also exercised (${UNKNOWN_ROUTE} 404).` : '',
    '',
    `Covered (${covered.length}):`,
    ...covered.map((pair) => `  ${pair}`),
    '',
    `Not covered (${uncovered.length}):`,
    ...uncovered.map((pair) => `  ${pair}`),
    '',
  ];
  mkdirSync(dirname(report), { recursive: true });
  writeFileSync(report, lines.join('\n'));
  return { covered, uncovered, documented: documented.length };
}
