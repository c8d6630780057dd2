/** `media-scanner batch`: the CSV checks (batch-csv.ts), the content-hash Idempotency-Key, and the live counter display (progress.ts). */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchIdempotencyKey, batchItemsFromCsv, parseCsv } from '../../../packages/cli/src/batch-csv.js';
import { UsageError } from '../../../packages/cli/src/output.js';
import { counterDisplay, countersLine, type BatchCounters } from '../../../packages/cli/src/progress.js';

const header = 'client_id,scanner_id,upload_id';

describe('batch CSV', () => {
  it('parses RFC 4180: quoted fields with commas, "" and line breaks; CRLF; a BOM; blank lines', () => {
    expect(parseCsv('\uFEFFa,b\r\n"x,1","say ""hi""",\n\n"two\nlines",  spaced  \n')).toEqual([
      ['a', 'b'],
      ['x,1', 'say "hi"', ''],
      ['two\nlines', 'spaced'],
    ]);
    expect(() => parseCsv('a,"open\n')).toThrow(UsageError);
  });

  it('reads items, with metadata_json as a quoted JSON object', () => {
    const text = `${header},metadata_json\nep-1,scn_a,upl_a,"{""episode"":1,""draft"":true}"\nep-2,scn_a,upl_b,\n`;
    expect(batchItemsFromCsv(text, 'items.csv')).toEqual([
      { client_id: 'ep-1', scanner_id: 'scn_a', upload_id: 'upl_a', metadata: { episode: 1, draft: true } },
      { client_id: 'ep-2', scanner_id: 'scn_a', upload_id: 'upl_b' },
    ]);
    expect(batchItemsFromCsv(`${header}\nep-1,scn_a,upl_a`, 'items.csv')).toEqual([{ client_id: 'ep-1', scanner_id: 'scn_a', upload_id: 'upl_a' }]);
  });

  const refused = (text: string) => {
    try {
      batchItemsFromCsv(text, 'items.csv');
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      return (error as Error).message;
    }
    throw new Error('accepted');
  };

  it('refuses a wrong header, no items, more than 100, duplicate client_id, empty fields and bad metadata, naming the item', () => {
    expect(refused('client_id,upload_id,scanner_id\na,b,c')).toMatch(
      /^items\.csv: the header must be client_id,scanner_id,upload_id\[,metadata_json\], not "client_id,upload_id,scanner_id"\.$/,
    );
    expect(refused(`${header},notes\na,b,c,d`)).toMatch(/the header must be/);
    expect(refused('')).toMatch(/the header must be/);
    expect(refused(`${header}\n`)).toBe('items.csv: no items; a batch holds 1 to 100.');
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `c${i},scn_a,upl_a`).join('\n');
    expect(batchItemsFromCsv(`${header}\n${rows(100)}`, 'items.csv')).toHaveLength(100);
    expect(refused(`${header}\n${rows(101)}`)).toBe('items.csv: 101 items; a batch holds at most 100. Split the file.');
    expect(refused(`${header}\nep-1,scn_a,upl_a\nep-2,scn_a,upl_b\nep-1,scn_b,upl_c`)).toBe(
      'items.csv: item 3: client_id "ep-1" is also item 1; client_id must be unique in a batch.',
    );
    expect(refused(`${header}\nep-1,,upl_a`)).toBe('items.csv: item 1: scanner_id is empty.');
    expect(refused(`${header}\nep-1,scn_a,upl_a,extra`)).toMatch(/^items\.csv: item 1: 4 fields for 3 columns/);
    expect(refused(`${header},metadata_json\nep-1,scn_a,upl_a,{oops}`)).toMatch(/item 1: metadata_json is not JSON/);
    expect(refused(`${header},metadata_json\nep-1,scn_a,upl_a,"[1]"`)).toMatch(/must be a JSON object/);
    expect(refused(`${header},metadata_json\nep-1,scn_a,upl_a,"{""a"":{""b"":1}}"`)).toMatch(/"a" is not/);
  });

  it('derives the Idempotency-Key from the bytes: the same file, the same key; any edit, another', async () => {
    const file = Buffer.from(`${header}\nep-1,scn_a,upl_a\n`);
    const key = await batchIdempotencyKey(file);
    expect(key).toMatch(/^batch-csv-sha256-[0-9a-f]{64}$/);
    expect(key).toBe(`batch-csv-sha256-${createHash('sha256').update(file).digest('hex')}`);
    expect(key.length).toBeLessThanOrEqual(255);
    expect(await batchIdempotencyKey(Buffer.from(file))).toBe(key);
    expect(await batchIdempotencyKey(Buffer.from(`${header}\nep-1,scn_a,upl_b\n`))).not.toBe(key);
  });
});

describe('batch counter display', () => {
  const counters = (completed: number, processing: number, queued: number, failed = 0): BatchCounters => ({
    total: completed + processing + queued + failed,
    queued,
    processing,
    completed,
    failed,
    canceled: 0,
  });
  const sink = () => {
    const writes: string[] = [];
    return { writes, stream: { write: (chunk: string) => writes.push(chunk) > 0 } };
  };

  it('says how many items settled, and how', () => {
    expect(countersLine('processing', counters(2, 1, 3, 1))).toBe('processing 3/7 settled: 2 completed, 1 failed, 0 canceled; 1 running, 3 queued');
  });

  it('on a terminal rewrites one line in place and ends it when the batch ends', () => {
    const { writes, stream } = sink();
    const display = counterDisplay(true, { stream, tty: true });
    display.update('queued', counters(0, 0, 2));
    display.update('processing', counters(0, 1, 1));
    display.stop('completed', counters(2, 0, 0));
    expect(writes).toEqual([
      `\r\x1b[2K${countersLine('queued', counters(0, 0, 2))}`,
      `\r\x1b[2K${countersLine('processing', counters(0, 1, 1))}`,
      `\r\x1b[2K${countersLine('completed', counters(2, 0, 0))}\n`,
    ]);
  });

  it('otherwise prints plain lines when the counters change, a heartbeat while they do not, and no repeated last line', () => {
    const { writes, stream } = sink();
    let now = 0;
    const display = counterDisplay(true, { stream, tty: false, everyMs: 60_000, now: () => now });
    display.update('processing', counters(0, 1, 1));
    now = 10_000;
    display.update('processing', counters(0, 1, 1));
    now = 70_000;
    display.update('processing', counters(0, 1, 1));
    display.update('processing', counters(1, 1, 0));
    display.stop('processing', counters(1, 1, 0));
    display.stop('completed', counters(2, 0, 0));
    expect(writes).toEqual([
      `${countersLine('processing', counters(0, 1, 1))}\n`,
      `${countersLine('processing', counters(0, 1, 1))}\n`,
      `${countersLine('processing', counters(1, 1, 0))}\n`,
      `${countersLine('completed', counters(2, 0, 0))}\n`,
    ]);
    expect(writes.every((line) => !line.includes('\x1b'))).toBe(true);
  });

  it('is silent with --json', () => {
    const { writes, stream } = sink();
    const display = counterDisplay(false, { stream, tty: true });
    display.update('processing', counters(0, 1, 1));
    display.stop('completed', counters(2, 0, 0));
    expect(writes).toEqual([]);
  });
});
