/** What scanners need from storage (implemented in functions/adapters). */
import type { Page, PageRequest } from '../pages.js';
import type { ScannerRecord } from './model.js';

export interface ScannerStore {
  /** Writes the head and the version-1 snapshot atomically. */
  create(accountId: string, scanner: ScannerRecord): Promise<void>;
  get(accountId: string, scannerId: string): Promise<ScannerRecord | undefined>;
  getVersion(accountId: string, scannerId: string, version: number): Promise<ScannerRecord | undefined>;
  /**
   * Writes snapshot `next.version` and moves the head, only if the head is still at
   * `next.version - 1`; returns false when another update won the race.
   */
  putNextVersion(accountId: string, next: ScannerRecord): Promise<boolean>;
  list(accountId: string, page: PageRequest): Promise<Page<ScannerRecord>>;
  listVersions(accountId: string, scannerId: string, page: PageRequest): Promise<Page<ScannerRecord>>;
}
