/**
 * Scanner batch items from a CSV (`client_id,scanner_id,upload_id[,metadata_json]`), checked here
 * before anything reaches the API, and the Idempotency-Key `media-scanner batch` derives from the
 * file's bytes so that submitting the same file again replays the first submission. No Node
 * module: the console submits the same CSVs from the browser, with the same checks and key.
 */
import { UsageError } from './usage-error.js';

export type Metadata = Record<string, string | number | boolean | null>;

export interface BatchItemInput {
  client_id: string;
  scanner_id: string;
  upload_id: string;
  metadata?: Metadata;
}

/** SPEC: a batch holds 1 to 100 items. */
export const maxBatchItems = 100;

/**
 * RFC 4180 records: fields separated by commas, optionally in double quotes (which may hold commas,
 * line breaks and "" for a quote); CRLF or LF line ends; blank lines skipped.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  const endField = () => {
    record.push(wasQuoted ? field : field.trim());
    field = '';
    wasQuoted = false;
  };
  const endRecord = () => {
    endField();
    if (record.length > 1 || record[0] !== '') records.push(record);
    record = [];
  };
  const source = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i];
    if (quoted) {
      if (c === '"' && source[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field.trim() === '') {
      quoted = true;
      wasQuoted = true;
      field = '';
    } else if (c === ',') endField();
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && source[i + 1] === '\n') i += 1;
      endRecord();
    } else field += c;
  }
  if (quoted) throw new UsageError('The CSV has a quoted field that never ends (a missing closing ").');
  if (field !== '' || record.length) endRecord();
  return records;
}

const required = ['client_id', 'scanner_id', 'upload_id'] as const;
const optional = 'metadata_json';

/** The items of a batch CSV, or a UsageError saying which line is wrong and why. */
export function batchItemsFromCsv(text: string, file: string): BatchItemInput[] {
  const [header, ...rows] = parseCsv(text);
  const columns = header ?? [];
  const expected = `client_id,scanner_id,upload_id[,${optional}]`;
  const known =
    columns.length >= 3 && columns.length <= 4 && required.every((name, i) => columns[i] === name) && (columns.length === 3 || columns[3] === optional);
  if (!known) throw new UsageError(`${file}: the header must be ${expected}, not "${columns.join(',')}".`);
  if (rows.length === 0) throw new UsageError(`${file}: no items; a batch holds 1 to ${maxBatchItems}.`);
  if (rows.length > maxBatchItems) throw new UsageError(`${file}: ${rows.length} items; a batch holds at most ${maxBatchItems}. Split the file.`);
  const seen = new Map<string, number>();
  return rows.map((cells, i) => {
    const line = `${file}: item ${i + 1}`;
    if (cells.length > columns.length)
      throw new UsageError(`${line}: ${cells.length} fields for ${columns.length} columns (quote a metadata_json that holds commas: "{""a"":1}").`);
    const [clientId = '', scannerId = '', uploadId = '', metadataJson = ''] = cells;
    for (const [name, value] of [
      ['client_id', clientId],
      ['scanner_id', scannerId],
      ['upload_id', uploadId],
    ] as const) {
      if (!value) throw new UsageError(`${line}: ${name} is empty.`);
    }
    const first = seen.get(clientId);
    if (first !== undefined) throw new UsageError(`${line}: client_id "${clientId}" is also item ${first}; client_id must be unique in a batch.`);
    seen.set(clientId, i + 1);
    const item: BatchItemInput = { client_id: clientId, scanner_id: scannerId, upload_id: uploadId };
    if (metadataJson) item.metadata = metadataOf(metadataJson, line);
    return item;
  });
}

function metadataOf(json: string, line: string): Metadata {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new UsageError(`${line}: metadata_json is not JSON: ${json}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`${line}: metadata_json must be a JSON object, not ${json}`);
  for (const [key, value] of Object.entries(parsed)) {
    if (value !== null && !['string', 'number', 'boolean'].includes(typeof value))
      throw new UsageError(`${line}: metadata_json values are strings, numbers, booleans or null ("${key}" is not).`);
  }
  return parsed as Metadata;
}

/**
 * The Idempotency-Key of a batch file: its SHA-256. The same bytes always give the same key, so
 * running `batch` on the same file again (within the API's 24 hours) follows the first batch
 * instead of submitting a second one; any edit makes a new key.
 */
export async function batchIdempotencyKey(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `batch-csv-sha256-${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
