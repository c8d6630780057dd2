/**
 * `npm run openapi`: writes openapi.json at the repo root (the document the API serves at
 * GET /v1/openapi.json) and the typed client's types generated from it
 * (packages/client/src/schema.ts). The unit tests fail while either is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.js';

const repoRoot = join(import.meta.dirname, '..', '..');
export const documentFile = join(repoRoot, 'openapi.json');
export const clientTypesFile = join(repoRoot, 'packages', 'client', 'src', 'schema.ts');

/** The package version is the document's `info.version`. */
const packageVersion = (): string => (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

const documentText = (document: OpenApiDocument): string => `${JSON.stringify(document, null, 2)}\n`;

/** TypeScript types of every path, operation and component, as openapi-fetch consumes them. */
async function clientTypesText(document: OpenApiDocument): Promise<string> {
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0], { silent: true, rootTypes: true, rootTypesNoSchemaPrefix: true });
  return `${COMMENT_HEADER.replace('Do not make direct changes to the file.', 'Do not make direct changes to the file: run `npm run openapi`.')}${astToString(ast)}`;
}

export async function generate(): Promise<{ document: string; clientTypes: string }> {
  const document = await buildOpenApiDocument(packageVersion());
  return { document: documentText(document), clientTypes: await clientTypesText(document) };
}

if (process.argv[1] === import.meta.filename) {
  const { document, clientTypes } = await generate();
  writeFileSync(documentFile, document);
  writeFileSync(clientTypesFile, clientTypes);
  console.log(`Wrote ${documentFile} (${Buffer.byteLength(document)} bytes) and ${clientTypesFile}.`);
}
