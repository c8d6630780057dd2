import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { nowIso } from '../clock.js';
import { effectiveMaxObservations } from '../accounts/accounts.js';
import { FALLBACK_LABEL, type ScannerRecord, type ScannerDefinition, type ScannerPatch } from './model.js';
import type { Account } from '../accounts/model.js';
import type { Page, PageRequest } from '../pages.js';
import type { ScannerStore } from './ports.js';

/**
 * Cross-field rules of a whole scanner definition. They run on the merged definition of a
 * PATCH too, so a version can never be created that a POST would have refused.
 */
export function assertValidDefinition(definition: ScannerDefinition, account: Account, deploymentCap: number): void {
  const { type, output, min_seconds, max_seconds, max_observations } = definition;
  const labels = output?.labels;
  const fields = output?.fields;

  if (type === 'classifier') {
    if (!labels) throw new ApiError('validation_failed', 'A classifier needs output.labels (2 to 50 labels).', 'output.labels');
    const seen = new Set<string>();
    labels.forEach((label, i) => {
      const folded = label.toLowerCase();
      // The fallback answer cannot also be a configured label: it would make answers ambiguous.
      if (folded === FALLBACK_LABEL) {
        throw new ApiError('validation_failed', `"${FALLBACK_LABEL}" is reserved: it is answered when no label fits.`, `output.labels[${i}]`);
      }
      if (seen.has(folded)) throw new ApiError('validation_failed', `Duplicate label "${label}".`, `output.labels[${i}]`);
      seen.add(folded);
    });
  } else if (labels) {
    throw new ApiError('validation_failed', 'output.labels applies only to classifier scanners.', 'output.labels');
  }

  if (type === 'extractor') {
    if (!fields) throw new ApiError('validation_failed', 'An extractor needs output.fields (1 to 20 field names).', 'output.fields');
    const duplicate = fields.findIndex((field, i) => fields.indexOf(field) !== i);
    if (duplicate >= 0) throw new ApiError('validation_failed', `Duplicate field "${fields[duplicate]}".`, `output.fields[${duplicate}]`);
  } else if (fields) {
    throw new ApiError('validation_failed', 'output.fields applies only to extractor scanners.', 'output.fields');
  }

  if (type !== 'find_moments') {
    const param = min_seconds !== undefined ? 'min_seconds' : max_seconds !== undefined ? 'max_seconds' : undefined;
    if (param) throw new ApiError('validation_failed', `${param} applies only to find_moments scanners.`, param);
  }
  if (min_seconds !== undefined && max_seconds !== undefined && min_seconds > max_seconds) {
    throw new ApiError('validation_failed', 'min_seconds must not exceed max_seconds.', 'min_seconds');
  }

  const cap = effectiveMaxObservations(account, deploymentCap);
  if (max_observations !== undefined && max_observations > cap) {
    throw new ApiError('validation_failed', `max_observations is capped at ${cap} for this account.`, 'max_observations');
  }
}

/** Applies a PATCH: absent keys keep their value, null clears an optional field. */
export function applyPatch(current: ScannerDefinition, patch: ScannerPatch): ScannerDefinition {
  const merged: Record<string, unknown> = { ...definitionOf(current) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (value !== undefined) merged[key] = value;
  }
  return merged as ScannerDefinition;
}

const definitionKeys = [
  'name',
  'instructions',
  'type',
  'profile',
  'max_observations',
  'min_seconds',
  'max_seconds',
  'output',
  'metadata',
] as const satisfies readonly (keyof ScannerDefinition)[];

/** The definition part of a record, without identity or timestamps. */
export function definitionOf(record: ScannerDefinition): ScannerDefinition {
  const definition: Record<string, unknown> = {};
  for (const key of definitionKeys) if (record[key] !== undefined) definition[key] = record[key];
  return definition as ScannerDefinition;
}

export interface ScannerDeps {
  scanners: ScannerStore;
  deploymentMaxObservations: number;
}

export async function createScanner(deps: ScannerDeps, account: Account, definition: ScannerDefinition): Promise<ScannerRecord> {
  assertValidDefinition(definition, account, deps.deploymentMaxObservations);
  const now = nowIso();
  const scanner: ScannerRecord = { ...definitionOf(definition), scannerId: newId('scanner'), version: 1, createdAt: now, updatedAt: now };
  await deps.scanners.create(account.accountId, scanner);
  return scanner;
}

export async function getScanner(deps: ScannerDeps, accountId: string, scannerId: string): Promise<ScannerRecord> {
  const scanner = await deps.scanners.get(accountId, scannerId);
  if (!scanner) throw notFound('scanner');
  return scanner;
}

/** Creates version N+1; snapshots already written are never touched. */
export async function updateScanner(deps: ScannerDeps, account: Account, scannerId: string, patch: ScannerPatch): Promise<ScannerRecord> {
  // Two concurrent PATCHes: the loser re-reads and applies its patch on top of the winner's.
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await getScanner(deps, account.accountId, scannerId);
    const definition = applyPatch(current, patch);
    assertValidDefinition(definition, account, deps.deploymentMaxObservations);
    const next: ScannerRecord = {
      ...definition,
      scannerId,
      version: current.version + 1,
      createdAt: current.createdAt,
      updatedAt: nowIso(),
    };
    if (await deps.scanners.putNextVersion(account.accountId, next)) return next;
  }
  throw new ApiError('rate_limited', 'This scanner is being changed concurrently; retry shortly.');
}

export const listScanners = (deps: ScannerDeps, accountId: string, page: PageRequest): Promise<Page<ScannerRecord>> => deps.scanners.list(accountId, page);

export async function listScannerVersions(deps: ScannerDeps, accountId: string, scannerId: string, page: PageRequest): Promise<Page<ScannerRecord>> {
  await getScanner(deps, accountId, scannerId);
  return deps.scanners.listVersions(accountId, scannerId, page);
}
